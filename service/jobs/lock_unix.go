//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package jobs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockDir takes an exclusive lock on <dir>/lock for as long as the
// returned file stays open: a second process opening the same directory
// would replay the same jobs and run their units a second time, each
// process writing its own results into the logs. The lock is an flock, so
// the kernel drops it when the process ends, however it ends: a crashed
// process leaves no stale lock behind. Where flock is missing (see
// lock_other.go) or refused by the file system, there is no lock.
func lockDir(dir string) (*os.File, error) {
	name := filepath.Join(dir, "lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("jobs: lock file: %w", err)
	}
	// A lock released a moment ago may still be held for a while: by a
	// process that is exiting, or by a child forked (not yet exec-ed)
	// while the lock's file was open, which shares its open file.
	deadline := time.Now().Add(lockWait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	switch {
	case errors.Is(err, syscall.EWOULDBLOCK):
		holder, _ := os.ReadFile(name)
		_ = f.Close()
		return nil, &dirInUseError{dir: dir, pid: strings.TrimSpace(string(holder))}
	case err != nil:
		// A file system without locks (some network mounts): go on
		// without, as before there was a lock.
		_ = f.Close()
		return nil, nil
	}
	// The holder's pid, for the message a second process shows.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
