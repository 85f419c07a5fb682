package jobs

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestMemoryStoreErrorsHideIDs: a job file's error names the job as the
// logs do (its path holds the whole id, the job's only credential) and
// still unwraps to the system's error.
func TestMemoryStoreErrorsHideIDs(t *testing.T) {
	dir := t.TempDir()
	s, err := NewMemoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	id := newID()
	// A directory where the job's file would be: it cannot be opened
	// for appending (root ignores permissions, not this).
	if err := os.Mkdir(s.path(id), 0o755); err != nil {
		t.Fatal(err)
	}
	err = s.append(id, logRecord{Op: "start"})
	if err == nil || strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), LoggedID(id)) || !errors.Is(err, syscall.EISDIR) {
		t.Errorf("append's error %v (is EISDIR: %v)", err, errors.Is(err, syscall.EISDIR))
	}
}

// TestMemoryStoreReplayErrorHidesID: a job file that cannot be read when
// the store opens fails NewMemoryStore with an error that names the job as
// the logs do (the process logs it as it stops).
func TestMemoryStoreReplayErrorHidesID(t *testing.T) {
	dir := t.TempDir()
	id := newID()
	// A directory in the place of the job's file: opened, not read.
	if err := os.Mkdir(dir+"/"+id+".jsonl", 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := NewMemoryStore(dir)
	if err == nil {
		_ = s.Close()
		t.Fatal("opened")
	}
	if strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), LoggedID(id)) || !errors.Is(err, syscall.EISDIR) {
		t.Errorf("NewMemoryStore's error %v (is EISDIR: %v)", err, errors.Is(err, syscall.EISDIR))
	}
}
