package mcp

// systemOpener opens a URL with its default handler (the default browser
// for https), as Explorer would; the URL is one argument, never parsed by
// a shell (cmd /c start would).
var systemOpener = []string{"rundll32", "url.dll,FileProtocolHandler"}
