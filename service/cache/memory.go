package cache

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// entryOverhead approximates the bookkeeping bytes of one entry (list
// element, map slot, struct), so that many tiny values cannot exceed the
// bound by hiding in overhead.
const entryOverhead = 96

// Memory is an LRU cache bounded by the total size of keys and values.
type Memory struct {
	maxBytes   int64
	defaultTTL time.Duration
	now        func() time.Time

	mu    sync.Mutex
	bytes int64
	order *list.List // front = most recently used
	items map[string]*list.Element
}

type memoryEntry struct {
	key     string
	value   []byte
	expires time.Time // zero: never
}

func (e *memoryEntry) size() int64 { return int64(len(e.key)+len(e.value)) + entryOverhead }

// NewMemory returns an LRU that holds at most maxBytes of keys and values.
func NewMemory(maxBytes int64, defaultTTL time.Duration) *Memory {
	return &Memory{
		maxBytes:   maxBytes,
		defaultTTL: defaultTTL,
		now:        time.Now,
		order:      list.New(),
		items:      make(map[string]*list.Element),
	}
}

// Get implements Cache.
func (m *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.items[key]
	if !ok {
		return nil, false, nil
	}
	e := el.Value.(*memoryEntry)
	if !e.expires.IsZero() && !m.now().Before(e.expires) {
		m.remove(el)
		return nil, false, nil
	}
	m.order.MoveToFront(el)
	return e.value, true, nil
}

// Set implements Cache. A value larger than the whole cache is not stored.
func (m *Memory) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	if ttl == 0 {
		ttl = m.defaultTTL
	}
	e := &memoryEntry{key: key, value: append([]byte(nil), value...)}
	if ttl > 0 {
		e.expires = m.now().Add(ttl)
	}
	if e.size() > m.maxBytes {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.items[key]; ok {
		m.remove(el)
	}
	m.items[key] = m.order.PushFront(e)
	m.bytes += e.size()
	for m.bytes > m.maxBytes {
		m.remove(m.order.Back())
	}
	return nil
}

func (m *Memory) remove(el *list.Element) {
	e := m.order.Remove(el).(*memoryEntry)
	delete(m.items, e.key)
	m.bytes -= e.size()
}

// Len returns the number of entries and their total size in bytes.
func (m *Memory) Len() (entries int, bytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.items), m.bytes
}

// Health implements Cache.
func (m *Memory) Health(context.Context) Health {
	n, b := m.Len()
	return Health{Backend: "memory", Reachable: true, Entries: n, Bytes: b}
}

// Close implements Cache.
func (m *Memory) Close() error { return nil }
