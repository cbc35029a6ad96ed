-- editors/nvim/mentat.lua -- Neovim (0.7 or later) runs `mentat lsp` for every buffer of filetype
-- mentat (*.rules, with editors/vim on the runtime path): errors as you type, hover (K), go to
-- definition, references, completion and the outline come from the language server.  Use it
-- from init.lua (docs/editors.md):
--
--   vim.opt.runtimepath:prepend("/path/to/mentat/editors/vim")
--   dofile("/path/to/mentat/editors/nvim/mentat.lua").setup({
--     cmd = { "mentat", "lsp" },   -- the default; add pack options: "--pack", "/path/to/mod"
--   })
--
-- In a rules buffer: K shows the hover, gd jumps to the definition, gr lists the references,
-- <C-x><C-o> completes, ]d and [d go to the next and previous diagnostic (opts.on_attach, a
-- function(client, bufnr), replaces these mappings with yours).
local M = {}

-- The mappings a rules buffer gets unless setup is given its own on_attach.
local function default_attach(_, bufnr)
  local map = function(lhs, fn) vim.keymap.set("n", lhs, fn, { buffer = bufnr }) end
  map("K", vim.lsp.buf.hover)
  map("gd", vim.lsp.buf.definition)
  map("gr", vim.lsp.buf.references)
  map("]d", vim.diagnostic.goto_next)
  map("[d", vim.diagnostic.goto_prev)
  vim.bo[bufnr].omnifunc = "v:lua.vim.lsp.omnifunc"
end

-- One server for all the rules files of the session: it checks each file against the pack the
-- file lies in, whichever that is.
function M.setup(opts)
  opts = opts or {}
  local cmd = opts.cmd or { "mentat", "lsp" }
  local client_id
  vim.api.nvim_create_autocmd("FileType", {
    pattern = "mentat",
    callback = function(args)
      if not (client_id and vim.lsp.get_client_by_id(client_id)) then
        client_id = vim.lsp.start_client({
          name = "mentat",
          cmd = cmd,
          root_dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(args.buf), ":p:h"),
          on_attach = opts.on_attach or default_attach,
        })
      end
      if client_id then vim.lsp.buf_attach_client(args.buf, client_id) end
    end,
  })
end

return M
