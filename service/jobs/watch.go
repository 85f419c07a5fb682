package jobs

import (
	"context"
	"sync"
	"time"

	"github.com/gamesolver/gamesolver/service"
)

// Watch sends a job's state on the channel: at once, then whenever its
// status, units done or nodes move on. The channel is closed after the
// final state, when ctx ends, or when the job cannot be read any more (it
// expired). An unknown id fails at once.
//
// The watchers of one job share one poll of the store every
// Options.WatchEvery (a thousand event streams on one job polled Redis
// each on its own: 9,600 calls a second).
func (m *Manager) Watch(ctx context.Context, id string) (<-chan Job, error) {
	first, err := m.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	ch := make(chan Job, 1)
	ch <- first
	if first.Status.Final() {
		close(ch)
		return ch, nil
	}
	w := m.watches.join(m, id)
	go func() {
		defer close(ch)
		defer m.watches.leave(id, w)
		last := first
		for {
			j, gone, changed := w.latest()
			switch {
			case gone:
				return
			case ahead(j, last):
				select {
				case ch <- j:
				case <-ctx.Done():
					return
				}
				last = j
				if j.Status.Final() {
					return
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-changed:
			}
		}
	}()
	return ch, nil
}

// ahead reports whether j is a later state of its job than last: none of
// status, units done and nodes goes back, and one has moved on. (The
// shared poll's state may be older than a new watcher's first.)
func ahead(j, last Job) bool {
	if j.ID == "" || statusRank[j.Status] < statusRank[last.Status] || j.Progress.Done < last.Progress.Done || j.Progress.Nodes < last.Progress.Nodes {
		return false
	}
	return j.Status != last.Status || j.Progress.Done != last.Progress.Done || j.Progress.Nodes != last.Progress.Nodes
}

// statusRank orders the statuses a job goes through.
var statusRank = map[Status]int{StatusQueued: 0, StatusRunning: 1, StatusDone: 2, StatusFailed: 2, StatusCanceled: 2}

// watchHub holds the polls of the jobs being watched.
type watchHub struct {
	mu   sync.Mutex
	byID map[string]*poll
}

// poll is one job's poll of the store, shared by its watchers.
type poll struct {
	watchers int // under watchHub.mu
	stop     context.CancelFunc

	mu      sync.Mutex
	job     Job           // the last state read (zero before the first)
	gone    bool          // the job cannot be read any more
	changed chan struct{} // closed when job or gone changes
}

// join adds a watcher of job id, starting its poll if it has none.
func (h *watchHub) join(m *Manager, id string) *poll {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byID == nil {
		h.byID = map[string]*poll{}
	}
	p := h.byID[id]
	if p == nil {
		ctx, stop := context.WithCancel(context.Background())
		p = &poll{stop: stop, changed: make(chan struct{})}
		h.byID[id] = p
		go p.run(ctx, m, id)
	}
	p.watchers++
	return p
}

// leave removes a watcher of job id; the last one stops the poll.
func (h *watchHub) leave(id string, p *poll) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p.watchers--; p.watchers == 0 {
		p.stop()
		if h.byID[id] == p {
			delete(h.byID, id)
		}
	}
}

// latest is the poll's last state, whether the job is gone, and a channel
// closed at the next change.
func (p *poll) latest() (Job, bool, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.job, p.gone, p.changed
}

func (p *poll) set(j Job, gone bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.job, p.gone = j, gone
	close(p.changed)
	p.changed = make(chan struct{})
}

// run reads the job every WatchEvery until ctx ends (no watcher left),
// the job is final, or it cannot be read any more.
func (p *poll) run(ctx context.Context, m *Manager, id string) {
	t := time.NewTicker(m.opts.WatchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		j, err := m.Get(ctx, id)
		switch {
		case err == nil:
			p.set(j, false)
			if j.Status.Final() {
				return
			}
		case service.KindOf(err) == service.KindNotFound:
			p.set(Job{}, true)
			return
		}
		// Else the store is down, or ctx ended: the next tick tells.
	}
}
