package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/watchlist"
	"k8s.io/utils/ptr"
)

// initial reads what exists of one source: as a watch-list when the
// client and server allow, else page by page. With follow, a watch-list's
// watch is returned open.
func (r *Reader) initial(ctx context.Context, s source, follow bool) (*store, string, watch.Interface, int, error) {
	spent := 0
	if !watchlist.DoesClientNotSupportWatchListSemantics(r.Client) {
		st, rv, w, err := watchList(ctx, s)
		switch {
		case err == nil:
			if !follow {
				w.Stop()
				w = nil
			}
			return st, rv, w, 1, nil
		case !ctxAlive(err) || notServed(err):
			return nil, "", nil, 1, err
		}
		// Refused (an older server, the feature off, watch not granted):
		// the paged list, one request more.
		spent = 1
	}
	st, rv, n, err := r.pagedList(ctx, s)
	return st, rv, nil, n + spent, err
}

func (r *Reader) pagedList(ctx context.Context, s source) (*store, string, int, error) {
	st := newStore()
	rv := ""
	requests := 0
	err := paged(ctx, &requests, s.opts, func(o metav1.ListOptions) (string, error) {
		items, next, v, err := s.list(ctx, o)
		if err != nil {
			return "", err
		}
		for _, it := range items {
			if v, ok := s.keep(it); ok {
				st.put(keyOf(it), v)
			}
		}
		rv = v
		return next, nil
	})
	return st, rv, requests, err
}

// watchList opens a watch that sends the existing objects first and ends
// them with a bookmark; it returns them, the bookmark's resource version
// and the watch, still open.
func watchList(ctx context.Context, s source) (*store, string, watch.Interface, error) {
	o := s.opts
	o.SendInitialEvents = ptr.To(true)
	o.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	o.AllowWatchBookmarks = true
	w, err := s.watch(ctx, o)
	if err != nil {
		return nil, "", nil, err
	}
	st := newStore()
	for {
		select {
		case <-ctx.Done():
			w.Stop()
			return nil, "", nil, ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil, "", nil, errors.New("the watch closed before the existing objects were sent")
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				if v, ok := s.keep(ev.Object); ok {
					st.put(keyOf(ev.Object), v)
				}
			case watch.Deleted:
				st.remove(keyOf(ev.Object))
			case watch.Bookmark:
				m, err := meta.Accessor(ev.Object)
				if err == nil && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
					return st, m.GetResourceVersion(), w, nil
				}
			case watch.Error:
				w.Stop()
				return nil, "", nil, apierrors.FromObject(ev.Object)
			}
		}
	}
}

// follow applies a source's changes from w (or a watch it opens from rv)
// until ctx ends, reopening closed watches where they left off and
// reading the source anew when that is too old (410 Gone).
func (m *Mirror) follow(ctx context.Context, r *Reader, s source, w watch.Interface, rv string, changed chan<- struct{}) {
	var pause time.Duration
	for ctx.Err() == nil {
		if w == nil {
			o := s.opts
			o.ResourceVersion, o.AllowWatchBookmarks = rv, true
			var err error
			w, err = s.watch(ctx, o)
			switch {
			case apierrors.IsForbidden(err):
				m.mu.Lock()
				m.stale = true
				m.mu.Unlock()
				m.Forbidden <- fmt.Sprintf("cannot watch %s (check: %s)", s.resource, canI("watch", s.resource, ""))
				return
			case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
				rv, w = m.restart(ctx, r, s, changed)
				continue
			case err != nil:
				pause = retryAfter(r.conn.failed(ctx, err), pause)
				sleep(ctx, pause)
				continue
			}
			r.conn.answered()
			pause = 0
		}
		var gone bool
		rv, gone = m.apply(ctx, s, w, rv, changed)
		w.Stop()
		w = nil
		if gone {
			rv, w = m.restart(ctx, r, s, changed)
		}
	}
}

// restart reads a source anew and swaps its store in whole, so objects
// deleted while the watch was behind do not linger. It reads as the first
// read did: a watch-list where the server allows (the API server's cache
// sends the objects and the watch stays open, one request), else pages.
// An API server that restarted has a new cache that cannot resume the old
// watches, so each source is read so once, not in a loop.
func (m *Mirror) restart(ctx context.Context, r *Reader, s source, changed chan<- struct{}) (string, watch.Interface) {
	st, rv, w, _, err := r.initial(ctx, s, true)
	if err != nil {
		sleep(ctx, watchRetry)
		return "", nil
	}
	m.mu.Lock()
	m.stores[s.resource] = st
	m.touched("")
	m.mu.Unlock()
	signal(changed)
	return rv, w
}

// apply applies a watch's events until it closes; gone says it ended
// with 410 Gone.
func (m *Mirror) apply(ctx context.Context, s source, w watch.Interface, rv string, changed chan<- struct{}) (string, bool) {
	for {
		select {
		case <-ctx.Done():
			return rv, false
		case ev, ok := <-w.ResultChan():
			if !ok {
				return rv, false
			}
			if ev.Type == watch.Error {
				st := apierrors.FromObject(ev.Object)
				return rv, apierrors.IsResourceExpired(st) || apierrors.IsGone(st)
			}
			if a, err := meta.Accessor(ev.Object); err == nil && a.GetResourceVersion() != "" {
				rv = a.GetResourceVersion()
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			m.mu.Lock()
			ns := ""
			if a, err := meta.Accessor(ev.Object); err == nil {
				ns = a.GetNamespace()
			}
			m.touched(ns)
			k := keyOf(ev.Object)
			if ev.Type == watch.Deleted {
				m.stores[s.resource].remove(k)
			} else if v, ok := s.keep(ev.Object); ok {
				m.stores[s.resource].put(k, v)
			}
			m.mu.Unlock()
			signal(changed)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
