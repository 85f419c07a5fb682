package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestWriteFile: a file replaced whole, leaving no temporary file beside
// it; a missing directory refused; a link written through with its
// target's mode kept.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "openings.txt")
	for _, data := range []string{"first\n", "second, longer\n", ""} {
		if err := WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != data {
			t.Errorf("after writing %q: %q, %v", data, b, err)
		}
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("a new file's mode: %v, %v; want 0644", st.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the directory, want the file alone", len(entries))
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x.txt"), []byte("x"), 0o644); err == nil {
		t.Error("a file in a missing directory written")
	}
	// Through a symbolic link: its target replaced, with its mode.
	if err := os.Chmod(path, 0o664); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link.txt")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("through\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(link)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link replaced by a file (%v)", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "through\n" {
		t.Errorf("the target holds %q", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o664 {
		t.Errorf("the target's mode %v, want 0664 kept", st.Mode().Perm())
	}
}

// TestWriteFailed: a writer's error leaves the old file whole and no
// temporary file; a device is written directly.
func TestWriteFailed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "table.tb")
	if err := WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := Write(path, 0o644, func(w io.Writer) error {
		if _, err := io.WriteString(w, "half of the new"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Write: %v, want the writer's error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after a failed write the file holds %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the directory, want the file alone", len(entries))
	}
	if err := WriteFile(os.DevNull, []byte("x"), 0o644); err != nil {
		t.Errorf("%s: %v", os.DevNull, err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode().IsRegular() {
		t.Errorf("%s replaced: %v, %v", os.DevNull, st, err)
	}
}

// TestWriteToPipe: a link to a pipe (/dev/stdout under "| cat":
// /proc/self/fd/1, whose target EvalSymlinks cannot resolve) is written
// directly, the link left in place (a review found the link replaced by
// a file and nothing sent down the pipe).
func TestWriteToPipe(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	link := filepath.Join(t.TempDir(), "stdout")
	if err := os.Symlink("/proc/self/fd/"+strconv.Itoa(int(w.Fd())), link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("down the pipe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if b, _ := io.ReadAll(r); string(b) != "down the pipe\n" {
		t.Errorf("the pipe got %q", b)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link replaced (%v, %v)", st, err)
	}
}

// TestReplace: Replace makes path a regular file of the mode asked for,
// whatever was there: a file of another mode, a link (replaced, its
// target untouched).
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "table.tb")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	fill := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := Replace(path, 0o644, fill("new")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("the replaced file's mode: %v, %v; want 0644", st, err)
	}
	target := filepath.Join(t.TempDir(), "elsewhere.tb")
	if err := os.WriteFile(target, []byte("target"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.tb")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Replace(link, 0o644, fill("table")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the link not replaced by a file: %v, %v", st, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "target" {
		t.Errorf("the link's target changed: %q", b)
	}
	if b, _ := os.ReadFile(link); string(b) != "table" {
		t.Errorf("the new file holds %q", b)
	}
}
