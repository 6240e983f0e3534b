//go:build unix

package render

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow makes open fail on a symbolic link at the last component.
const openNoFollow = syscall.O_NOFOLLOW

func currentUID() int { return os.Getuid() }

// ownerProblem says what is wrong with who owns fi: another user, access
// for others (a directory), other names (a file: a hard link to someone's
// file). "" when nothing is.
func ownerProblem(fi fs.FileInfo, uid int, dir bool) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	if int(st.Uid) != uid {
		return fmt.Sprintf("it belongs to user id %d, not to you (%d)", st.Uid, uid)
	}
	if perm := fi.Mode().Perm(); dir && perm&0o077 != 0 {
		return fmt.Sprintf("its mode is %#o, open to other users (it must be 0700)", perm)
	}
	if n := uint64(st.Nlink); !dir && n > 1 {
		return fmt.Sprintf("it has %d names (hard links)", n)
	}
	return ""
}
