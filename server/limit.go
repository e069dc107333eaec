package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"connectrpc.com/connect"
	"golang.org/x/time/rate"

	"telha.dev/core/storage"
	"telha.dev/server/auth"
)

// TenantBound bounds what one tenant's calls take of the server, so that
// one tenant's flood cannot starve the others. Its zero value is the
// defaults: at most DefaultTenantConcurrency calls of a tenant run at
// once, DefaultTenantQueue more wait, and calls per second are not
// bounded.
//
// Running calls are what take the CPU: on a machine of few cores a tenant
// whose calls each scan thousands of vectors holds every core while
// enough of them run, and another tenant's point read then waits for a
// core behind them. A bound below the number of cores leaves the others
// one (the default holds a flood to four cores' worth of handlers; on a
// store whose reads wait on the network, etcd, calls hold slots while
// they wait, and a larger bound serves a busy tenant better). A call that
// finds its tenant's slots taken waits in its tenant's queue, in arrival
// order and within its deadline, costing nothing while it waits. A call
// beyond the queue, or beyond the rate, is refused at once with
// resource_exhausted, and the client backs off.
//
// One bound holds a tenant's RPCs and its MCP requests together (the
// interceptor and the middleware share it).
type TenantBound struct {
	// Concurrency bounds the calls of one tenant that run at once; 0
	// means DefaultTenantConcurrency.
	Concurrency int
	// Queue bounds the calls of one tenant that wait for one of its
	// running slots; 0 means DefaultTenantQueue, a negative value that
	// none wait.
	Queue int
	// Rate bounds the calls one tenant starts per second, with bursts of
	// up to Burst calls; 0 means no bound. Burst 0 means a second's worth
	// of calls (Rate rounded up, at least 1).
	Rate  float64
	Burst int
}

// Defaults of TenantBound.
const (
	DefaultTenantConcurrency = 4
	DefaultTenantQueue       = 64
)

// withDefaults returns b with its zero fields set to the defaults.
func (b TenantBound) withDefaults() TenantBound {
	if b.Concurrency <= 0 {
		b.Concurrency = DefaultTenantConcurrency
	}
	switch {
	case b.Queue == 0:
		b.Queue = DefaultTenantQueue
	case b.Queue < 0:
		b.Queue = 0
	}
	if b.Rate < 0 {
		b.Rate = 0
	}
	if b.Burst <= 0 {
		b.Burst = max(1, int(math.Min(math.Ceil(b.Rate), math.MaxInt32)))
	}
	return b
}

// Errors of the bound, each a resource_exhausted refusal.
var (
	// errBusy reports a tenant whose running slots and queue are full.
	errBusy = errors.New("too many concurrent calls of this tenant")
	// errRate reports a tenant over its rate of calls.
	errRate = errors.New("too many calls of this tenant per second")
)

// tenantLimit applies a TenantBound to every tenant. It runs after
// authentication, so the tenant is the principal's.
type tenantLimit struct {
	bound   TenantBound
	mu      sync.Mutex
	tenants map[storage.TenantScope]*tenantSlots
}

// tenantSlots is one tenant's share. Its counters are under the limit's
// mutex. The last call to leave it drops it if its bucket is full, when a
// new entry would be the same; otherwise it stays, one small entry per
// tenant that has called, until a later call of the tenant leaves it.
type tenantSlots struct {
	running chan struct{} // one token per running call, capacity Concurrency
	holders int           // calls running or waiting
	waiting int
	bucket  *rate.Limiter // nil without a rate bound
}

func newTenantLimit(b TenantBound) *tenantLimit {
	return &tenantLimit{bound: b.withDefaults(), tenants: map[storage.TenantScope]*tenantSlots{}}
}

// acquire waits for a running slot of scope and returns its release and
// whether it waited, or refuses: errRate or errBusy at once, ctx's error
// if it ends first.
func (l *tenantLimit) acquire(ctx context.Context, scope storage.TenantScope) (release func(), waited bool, err error) {
	l.mu.Lock()
	t := l.tenants[scope]
	if t == nil {
		t = &tenantSlots{running: make(chan struct{}, l.bound.Concurrency)}
		if l.bound.Rate > 0 {
			t.bucket = rate.NewLimiter(rate.Limit(l.bound.Rate), l.bound.Burst)
		}
		l.tenants[scope] = t
	}
	if t.bucket != nil && !t.bucket.Allow() {
		l.mu.Unlock()
		return nil, false, fmt.Errorf("%w: over %g", errRate, l.bound.Rate)
	}
	release = func() {
		<-t.running
		l.leave(scope, t)
	}
	select {
	case t.running <- struct{}{}:
		t.holders++
		l.mu.Unlock()
		return release, false, nil
	default:
	}
	if t.waiting >= l.bound.Queue {
		l.mu.Unlock()
		return nil, false, fmt.Errorf("%w: %d running and %d waiting", errBusy, l.bound.Concurrency, t.waiting)
	}
	t.holders++
	t.waiting++
	l.mu.Unlock()
	select {
	case t.running <- struct{}{}:
	case <-ctx.Done():
		err = ctx.Err()
	}
	l.mu.Lock()
	t.waiting--
	l.mu.Unlock()
	if err != nil {
		l.leave(scope, t)
		return nil, true, err
	}
	return release, true, nil
}

// leave counts a call out of t, and drops t once it is idle.
func (l *tenantLimit) leave(scope storage.TenantScope, t *tenantSlots) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t.holders--; t.holders == 0 && (t.bucket == nil || t.bucket.Tokens() >= float64(l.bound.Burst)) {
		delete(l.tenants, scope)
	}
}

// interceptor applies the bound to every call. A call that starts long
// after its check has its credential checked again (recheck).
func (l *tenantLimit) interceptor(authn *auth.Authenticator) connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			p, ok := auth.From(ctx)
			if !ok {
				return nil, connect.NewError(connect.CodeUnauthenticated, auth.ErrUnauthenticated)
			}
			release, waited, err := l.acquire(ctx, p.Scope())
			if errors.Is(err, errBusy) || errors.Is(err, errRate) {
				return nil, connect.NewError(connect.CodeResourceExhausted, err)
			}
			if err != nil {
				return nil, err
			}
			defer release()
			if stale(p, waited) {
				if err := recheck(ctx, authn, p, req.Header().Values("Authorization")); err != nil {
					return nil, err
				}
			}
			return next(ctx, req)
		}
	})
}

// recheckAfter is how old a call's check may be when the call starts to
// run: a call authenticated longer ago than that, before its body arrived
// or while it waited, is checked again.
const recheckAfter = 100 * time.Millisecond

// stale reports whether the call of p, which waited for its slot or not,
// must check its credential again before it runs.
func stale(p auth.Principal, waited bool) bool {
	return waited || time.Since(p.Checked()) > recheckAfter
}

// recheck checks again the credential of a call that was authenticated as
// p and then took long to start: its body was slow to arrive (the
// authentication comes before it), or it waited for its tenant's slot, up
// to the call's deadline. Meanwhile its key may have been revoked, or its
// tenant erased, and a write let through on the first check would land
// after the erasure had counted the tenant's rows to zero. The time
// between the last check and the call's own write is fenced by the store
// (see the package documentation).
func recheck(ctx context.Context, authn *auth.Authenticator, p auth.Principal, values []string) error {
	now, err := authn.Check(ctx, values)
	if err != nil {
		return err
	}
	if now.Scope() != p.Scope() {
		return connect.NewError(connect.CodeUnauthenticated, auth.ErrUnauthenticated)
	}
	return nil
}

// middleware applies the bound to every request of an HTTP endpoint that
// runs behind the authentication middleware (MCP's), within the call
// deadline: what the interceptor does for the RPCs, so that a tenant
// cannot take the server's workers by calling tools instead.
func (l *tenantLimit) middleware(authn *auth.Authenticator, timeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := auth.From(r.Context())
		if !ok {
			http.Error(w, auth.ErrUnauthenticated.Error(), http.StatusUnauthorized)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		release, waited, err := l.acquire(ctx, p.Scope())
		switch {
		case errors.Is(err, errBusy), errors.Is(err, errRate):
			http.Error(w, err.Error(), http.StatusTooManyRequests)
			return
		case err != nil:
			http.Error(w, "deadline exceeded", http.StatusServiceUnavailable)
			return
		}
		defer release()
		if stale(p, waited) {
			if err := recheck(ctx, authn, p, r.Header.Values("Authorization")); err != nil {
				if connect.CodeOf(err) != connect.CodeUnauthenticated {
					http.Error(w, "the store cannot check credentials now", http.StatusServiceUnavailable)
					return
				}
				w.Header().Set("WWW-Authenticate", `Bearer realm="telha"`)
				http.Error(w, auth.ErrUnauthenticated.Error(), http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
