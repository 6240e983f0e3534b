package render

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// PrivacyError is howl refusing a path that another user could have put
// there, or could reach: a link planted where howl writes would make howl
// write through it into someone's file.
type PrivacyError struct {
	// Path is the file or directory refused.
	Path string
	// Problem says what is wrong with it ("its mode is 0777, ...").
	Problem string
	// Fix says what to do about it.
	Fix string
}

func (e *PrivacyError) Error() string {
	return fmt.Sprintf("not using %s: %s; %s", e.Path, e.Problem, e.Fix)
}

// CacheDir is where howl keeps its cache (learned protocol eras, server
// stderr logs, spill files): $HOWL_CACHE_DIR, else <user cache dir>/howl,
// else, when there is no home ($HOME and $XDG_CACHE_HOME unset), the
// directory howl-cache in the shared temp directory. That fallback is
// checked with PrivateDir before use, as anyone may have created it first.
func CacheDir() (string, error) {
	if d := os.Getenv("HOWL_CACHE_DIR"); d != "" {
		return d, nil
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "howl"), nil
	}
	dir := filepath.Join(os.TempDir(), "howl-cache")
	if err := PrivateDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// PrivateDir makes sure dir is a directory only the current user can use:
// it is created 0700 when missing, and an existing one must be a real
// directory (not a link) owned by the current user with no access for
// anyone else. Anything else is refused with a *PrivacyError: in a shared
// directory such as /tmp another user can create the name first and plant
// links in it for howl to write through.
func PrivateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating the private directory %s: %w; set HOWL_CACHE_DIR to a directory of your own", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if p := dirProblem(fi, currentUID()); p != "" {
		return &PrivacyError{Path: dir, Problem: p,
			Fix: "another user could plant links in it for howl to write through: set HOWL_CACHE_DIR to a directory of your own, or remove " + dir}
	}
	return nil
}

// dirProblem says what keeps fi from being a private directory of uid;
// "" when nothing does.
func dirProblem(fi fs.FileInfo, uid int) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "it is a symbolic link"
	case !fi.IsDir():
		return "it is not a directory"
	}
	return ownerProblem(fi, uid, true)
}

// fileProblem says what keeps fi from being a file of uid that howl may
// write; "" when nothing does.
func fileProblem(fi fs.FileInfo, uid int) string {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return "it is a symbolic link"
	}
	if !fi.Mode().IsRegular() {
		return fmt.Sprintf("it is not a regular file (%s)", fi.Mode().Type())
	}
	return ownerProblem(fi, uid, false)
}

// OpenPrivate opens one of howl's own files (a log, the token file) like
// os.OpenFile, but never through a symbolic link at name (O_NOFOLLOW where
// the system has it, an Lstat first where it does not), and only when what
// it opened is a regular file of the current user with no other names.
// Anything else is closed and refused with a *PrivacyError. O_TRUNC is
// applied only after those checks pass.
func OpenPrivate(name string, flag int, perm fs.FileMode) (*os.File, error) {
	refuse := func(p string) error {
		return &PrivacyError{Path: name, Problem: p, Fix: "it is not a file howl made: remove it"}
	}
	isLink := func() bool {
		fi, err := os.Lstat(name)
		return err == nil && fi.Mode()&fs.ModeSymlink != 0
	}
	if openNoFollow == 0 && isLink() {
		return nil, refuse("it is a symbolic link")
	}
	f, err := os.OpenFile(name, flag&^os.O_TRUNC|openNoFollow, perm)
	if err != nil {
		if isLink() {
			return nil, refuse("it is a symbolic link")
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		if p := fileProblem(fi, currentUID()); p != "" {
			err = refuse(p)
		} else if flag&os.O_TRUNC != 0 {
			err = f.Truncate(0)
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
