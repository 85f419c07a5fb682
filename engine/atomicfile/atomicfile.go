// Package atomicfile writes files whole or not at all: through a temporary
// file in the same directory, synced, then renamed over the target. A
// process killed or a disk full mid-write leaves the old file as it was.
// Both the engines' artefacts (Teeko tables) and the command's outputs
// (the book's files) are written so.
package atomicfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
)

// Write writes what fill writes to path, atomically. A symbolic link is
// written through (its target replaced, the link kept), an existing file
// keeps its mode (perm is a new file's), and what is not a regular file
// (/dev/stdout, a pipe or a terminal) is written directly. fill's error
// is returned, the target left as it was.
func Write(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	// Stat follows every link, /proc/self/fd's to pipes too (which
	// EvalSymlinks cannot resolve).
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return writeDirectly(path, perm, fill)
		}
		perm = st.Mode().Perm()
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
	}
	return replace(path, perm, fill)
}

// Replace writes what fill writes to path, atomically, as a regular file
// of mode perm whatever path was (a link is replaced, not written
// through; an existing file's mode is not kept): files whose place and
// mode the caller owns, as the Teeko tables in the data directory.
func Replace(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	return replace(path, perm, fill)
}

// replace writes through a temporary file in path's directory renamed
// over path.
func replace(path string, perm os.FileMode, fill func(w io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, there is none
	defer func() {
		if err != nil {
			_ = f.Close()
		}
	}()
	// CreateTemp makes 0600: the file gets perm whatever the umask, so
	// that tables built by one user (or in an image) serve another's
	// processes.
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = fill(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path)) // the rename, written down
	return nil
}

// WriteFile is Write of data, as os.WriteFile.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}

// writeDirectly writes to what is not a regular file (a device, a pipe).
func writeDirectly(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// syncDir flushes a directory's entries (a rename in it) to the disk, as
// far as the file system can: some (network, FUSE) refuse a directory's
// sync, and the file is in place all the same.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
