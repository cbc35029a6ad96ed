-- nvim-test.lua -- Neovim's own LSP client (0.7+, headless) against `mentat lsp` (tests/run-lsp.sh).
--
-- Set up as docs/editors.md says (an init.lua that puts editors/vim on the runtime path and calls
-- editors/nvim/mentat.lua's setup: tests/run-lsp.sh writes it), opens
-- FILE -- a faction file of a copy of the pack, with a deliberate error: a misspelt territory --
-- and checks what a modder sees: the diagnostic (message, line, column, suggestion), that typing
-- the fix clears it (the client's incremental changes; the file is not saved), a hover on a rule
-- number, a jump to the definition of a rule number, and the completion of a territory.  Writes
-- "nvim: ok: ..." / "nvim: FAIL: ..." lines and "nvim: all passed" to OUT; exits non-zero on a
-- failure.  Environment: FILE, OUT.
local out = assert(io.open(os.getenv("OUT"), "w"))
local failed = 0
local function say(s)
  out:write("nvim: " .. s .. "\n")
  out:flush()
end
local function check(what, cond)
  if cond then say("ok: " .. what) else failed = failed + 1; say("FAIL: " .. what) end
end
local function finish()
  if failed == 0 then say("all passed") end
  out:close()
  vim.cmd(failed == 0 and "qa!" or "cquit! 1")
end

local ok, err = pcall(function()
  local file = os.getenv("FILE")
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  check("the file's type is mentat (ftdetect)", vim.bo[buf].filetype == "mentat")
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local bad_line, bad_col
  for i, l in ipairs(lines) do
    local c = l:find("section(sietch_tab, first", 1, true)
    if c and not bad_line then bad_line, bad_col = i - 1, c - 1 + #"section(" end
  end
  check("the faction file has the deliberate error", bad_line ~= nil)
  local id
  vim.wait(5000, function()
    local cs = vim.lsp.buf_get_clients(buf)
    for k, _ in pairs(cs) do id = k end
    return id ~= nil
  end, 20)
  check("opening the file started mentat lsp and attached it", id ~= nil)

  -- 1. the diagnostic of the unsaved text
  vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  local d = vim.diagnostic.get(buf)
  check("one diagnostic is shown", #d == 1)
  if d[1] then
    check("it names the misspelt territory and suggests the right one",
      d[1].message == "unknown name 'sietch_tab' (did you mean 'sietch_tabr'?)")
    check("it is an error on the line and column of the name", d[1].lnum == bad_line and d[1].col == bad_col
      and d[1].severity == vim.diagnostic.severity.ERROR)
  end

  -- 2. typing the fix (an incremental change) clears it
  vim.api.nvim_buf_set_text(buf, bad_line, bad_col + #"sietch_tab", bad_line, bad_col + #"sietch_tab", { "r" })
  vim.wait(10000, function() return #vim.diagnostic.get(buf) == 0 end, 20)
  check("fixing the name clears the diagnostic", #vim.diagnostic.get(buf) == 0)

  -- positions of the file's first `supersedes N` and of a territory name
  lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local sup_line, sup_col, terr_line, terr_col, rule
  for i, l in ipairs(lines) do
    local c, _, n = l:find("supersedes ([%d.]+)")
    if c and not sup_line then sup_line, sup_col, rule = i - 1, c - 1 + #"supersedes " + 2, n end
    local t = l:find("sietch_tabr", 1, true)
    if t and not terr_line then terr_line, terr_col = i - 1, t - 1 + #"sietch" end
  end
  local uri = vim.uri_from_bufnr(buf)

  -- 3. hover on a rule number
  local res = vim.lsp.buf_request_sync(buf, "textDocument/hover",
    { textDocument = { uri = uri }, position = { line = sup_line, character = sup_col } }, 5000)
  local hover = res and res[id] and res[id].result
  local text = hover and hover.contents and hover.contents.value or ""
  check("hover on rule " .. tostring(rule) .. " shows its number and title", text:find(rule .. "  ", 1, true) ~= nil)
  check("hover shows Basic/Advanced and the Karama window", text:find("game: Basic", 1, true) ~= nil
    and text:find("karama: ", 1, true) ~= nil)
  check("hover shows what supersedes the rule", text:find("superseded by: ", 1, true) ~= nil)

  -- 4. go to definition: the client jumps to the rule's file and line
  vim.api.nvim_win_set_cursor(0, { sup_line + 1, sup_col })
  vim.lsp.buf.definition()
  vim.wait(5000, function() return vim.api.nvim_buf_get_name(0) ~= file end, 20)
  local target = vim.api.nvim_buf_get_name(0)
  local here = vim.api.nvim_get_current_line()
  check("go to definition opens the rule's file", target:find("/rules/", 1, true) ~= nil)
  check("go to definition lands on 'rule " .. tostring(rule) .. "'", here:find("rule " .. rule, 1, true) ~= nil)
  vim.cmd("buffer " .. buf)

  -- 5. completion of a territory from its first letters
  res = vim.lsp.buf_request_sync(buf, "textDocument/completion",
    { textDocument = { uri = uri }, position = { line = terr_line, character = terr_col } }, 5000)
  local items = res and res[id] and res[id].result and res[id].result.items or {}
  local found
  for _, it in ipairs(items) do if it.label == "sietch_tabr" then found = it end end
  check("completing 'sietch' offers sietch_tabr", found ~= nil)
  check("with its detail (the territory's name)", found and found.detail == "territory: Sietch Tabr")
  for _, it in ipairs(items) do
    if it.label:sub(1, 6) ~= "sietch" then check("every completion starts with the prefix", false); break end
  end

  vim.lsp.stop_client(id)
  vim.wait(3000, function() return vim.lsp.get_client_by_id(id) == nil end, 20)
end)
if not ok then check("the script ran: " .. tostring(err), false) end
finish()
