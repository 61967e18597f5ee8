package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// ErrLockBusy is returned when a lock could not be taken within the wait
// budget. A hook that gets it gives up quietly rather than stall the agent.
var ErrLockBusy = errors.New("state is locked by another djinn process")

// lockRetry is how often a waiting process retries the lock. Hooks hold the
// lock for about a millisecond, so a short poll keeps queues moving.
const lockRetry = time.Millisecond

// Lock is an exclusive advisory lock on a lock file that is never the data
// file (renameio replaces data files' inodes) and is never deleted (deleting
// a lock file lets two processes hold "the" lock at once).
type Lock struct {
	fl *flock.Flock
}

// acquire takes an exclusive flock on path within wait, creating the file
// 0600 and its directory 0700 if needed.
func acquire(ctx context.Context, path string, wait time.Duration) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err == nil && !ok && wait > 0 {
		cctx, cancel := context.WithTimeout(ctx, wait)
		ok, err = fl.TryLockContext(cctx, lockRetry)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			err = nil
		}
	}
	if err != nil {
		_ = fl.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		_ = fl.Close()
		return nil, fmt.Errorf("%w (waited %v for %s)", ErrLockBusy, wait, path)
	}
	return &Lock{fl: fl}, nil
}

// Unlock releases the lock and closes the lock file; the file stays.
func (l *Lock) Unlock() error {
	if l == nil || l.fl == nil {
		return nil
	}
	err := l.fl.Unlock()
	l.fl = nil
	return err
}
