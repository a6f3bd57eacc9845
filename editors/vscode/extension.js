// Starts `isa lsp` for .isa files. The server does all the work; this only connects
// VS Code to it over stdio.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

exports.activate = function (context) {
  const command = vscode.workspace.getConfiguration('isa').get('server.path', 'isa');
  client = new LanguageClient(
    'isa',
    'ISA language server',
    { command, args: ['lsp'] },
    { documentSelector: [{ scheme: 'file', language: 'isa' }] }
  );
  context.subscriptions.push(client);
  return client.start();
};

exports.deactivate = function () {
  return client ? client.stop() : undefined;
};
