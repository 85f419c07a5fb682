//go:build unix

package jobs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockDir takes an exclusive lock on <dir>/lock for as long as the
// returned file stays open: a second process opening the same directory
// would replay the same jobs and run their units a second time, each
// process writing its own results into the logs. The lock is an flock, so
// the kernel drops it when the process ends, however it ends: a crashed
// process leaves no stale lock behind.
func lockDir(dir string) (*os.File, error) {
	name := filepath.Join(dir, "lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("jobs: lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(name)
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &dirInUseError{dir: dir, pid: strings.TrimSpace(string(holder))}
		}
		return nil, fmt.Errorf("jobs: lock %s: %w", name, err)
	}
	// The holder's pid, for the message a second process shows.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
