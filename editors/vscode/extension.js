// extension.js -- starts `mentat lsp` for *.rules files (docs/editors.md).  The language server
// does the work: diagnostics as you type, hover, go to definition, references, completion, outline.
'use strict';
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate() {
  const cfg = vscode.workspace.getConfiguration('mentat');
  const server = { command: cfg.get('path', 'mentat'), args: ['lsp', ...cfg.get('args', [])] };
  client = new LanguageClient('mentat', 'Mentat rules', { run: server, debug: server }, {
    documentSelector: [{ scheme: 'file', language: 'mentat' }],
  });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
