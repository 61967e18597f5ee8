package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/gofrs/flock"
	"golang.org/x/sys/unix"
)

// ErrLockBusy is returned when a lock could not be taken within the wait
// budget. A hook that gets it gives up quietly rather than stall the agent.
var ErrLockBusy = errors.New("state is locked by another djinn process")

// Lock is an exclusive advisory lock on a lock file that is never the data
// file (renameio replaces data files' inodes) and is never deleted (deleting
// a lock file lets two processes hold "the" lock at once).
type Lock struct {
	fl *flock.Flock
	// held is the lock file's directory, which store keeps open for the
	// files beside it until Unlock.
	held  *heldDir
	store *Store
}

// acquire takes an exclusive flock on path within wait, creating the file
// 0600 and its directory 0700 if needed. The lock file is made ready as an
// append target is (openFile: no link followed, a link or a FIFO in its
// place moved aside), and flock opens it with O_NOFOLLOW.
func (s *Store) acquire(ctx context.Context, path string, wait time.Duration) (*Lock, error) {
	base, dirs, name := s.split(path)
	dfd, err := s.openDir(base, dirs, walkCreate)
	if err != nil {
		return nil, fmt.Errorf("create lock: %w", err)
	}
	f, err := s.openFileAt(dfd, path, name, fileOpts{mode: walkCreate, flags: os.O_RDONLY | os.O_CREATE, perm: 0o600})
	if err != nil {
		_ = unix.Close(dfd)
		return nil, fmt.Errorf("create lock: %w", err)
	}
	_ = f.Close()
	held := &heldDir{base: base, dirs: dirs, fd: dfd}
	l, err := s.lockAt(ctx, path, wait)
	if err != nil {
		held.close()
		return nil, err
	}
	l.held, l.store = held, s
	s.held.Store(held)
	return l, nil
}

// lockAt takes the flock of acquire on the lock file at path, made ready.
func (s *Store) lockAt(ctx context.Context, path string, wait time.Duration) (*Lock, error) {
	fl := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC), flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err == nil && !ok && wait > 0 {
		var abandoned bool
		ok, abandoned, err = lockWithin(ctx, fl, wait, s.lockHooks)
		if abandoned {
			// fl is the waiting goroutine's now.
			if err != nil {
				return nil, fmt.Errorf("lock %s: %w", path, err)
			}
			return nil, fmt.Errorf("%w (waited %v for %s)", ErrLockBusy, wait, path)
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

// lockHooks let a test hear of lock waits, nil in use: waiting is called
// with the lock's path when a waiter blocks; abandonedClosed after a waiter
// that gave up got its lock late and let it go.
type lockHooks struct {
	waiting, abandonedClosed func(path string)
}

// lockWithin waits at most wait (or until ctx is done) for fl's exclusive
// lock, in a blocking flock(2) the kernel answers as soon as the holder
// lets go. It replaces polling (gofrs/flock's TryLockContext, every
// millisecond): 64 overlapping hooks each woke a thousand times a second
// and slowed the one holding the lock they waited for. A blocked flock
// cannot be interrupted, so on giving up (abandoned) fl stays with the
// waiting goroutine, which closes it, releasing the lock, if the lock
// comes later; a hook process exits first anyway, which releases it too.
func lockWithin(ctx context.Context, fl *flock.Flock, wait time.Duration, hooks lockHooks) (ok, abandoned bool, err error) {
	got := make(chan error, 1)
	var mu sync.Mutex
	gaveUp := false
	go func() {
		err := fl.Lock()
		mu.Lock()
		defer mu.Unlock()
		if gaveUp {
			_ = fl.Close()
			if hooks.abandonedClosed != nil {
				hooks.abandonedClosed(fl.Path())
			}
			return
		}
		got <- err
	}()
	if hooks.waiting != nil {
		hooks.waiting(fl.Path())
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	var cause error
	select {
	case err := <-got:
		return err == nil, false, err
	case <-t.C:
	case <-ctx.Done():
		cause = ctx.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	select {
	case err := <-got: // it came as the wait ran out
		return err == nil, false, err
	default:
		gaveUp = true
		return false, true, cause
	}
}

// Unlock releases the lock and closes the lock file; the file stays.
func (l *Lock) Unlock() error {
	if l == nil || l.fl == nil {
		return nil
	}
	if l.held != nil {
		l.store.held.CompareAndSwap(l.held, nil)
		l.held.close()
		l.held = nil
	}
	err := l.fl.Unlock()
	l.fl = nil
	return err
}
