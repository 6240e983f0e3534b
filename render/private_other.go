//go:build !unix

package render

import "io/fs"

// openNoFollow is zero where open has no O_NOFOLLOW: OpenPrivate looks
// with Lstat first instead.
const openNoFollow = 0

func currentUID() int { return -1 }

// ownerProblem checks nothing here: Windows guards files with ACLs, not
// modes, and its temp directory is the user's own.
func ownerProblem(fs.FileInfo, int, bool) string { return "" }
