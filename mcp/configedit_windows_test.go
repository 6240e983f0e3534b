package mcp

// editOverSizeLimit has no file size limit to run under on Windows.
func editOverSizeLimit() int { return 2 }
