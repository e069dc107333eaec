package server

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"connectrpc.com/connect"

	"telha.dev/core/storage"
	"telha.dev/server/auth"
)

// tenantLimit bounds the calls one tenant has in flight, so that one
// tenant's flood cannot take every worker and starve the others: a call
// beyond the bound is refused at once with resource_exhausted, and the
// client backs off. It runs after authentication, so the tenant is the
// principal's.
type tenantLimit struct {
	max      int
	mu       sync.Mutex
	inFlight map[storage.TenantScope]int
}

func newTenantLimit(max int) *tenantLimit {
	return &tenantLimit{max: max, inFlight: map[storage.TenantScope]int{}}
}

// acquire counts a call of scope in, or reports that the tenant is at its
// bound.
func (l *tenantLimit) acquire(scope storage.TenantScope) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight[scope] >= l.max {
		return false
	}
	l.inFlight[scope]++
	return true
}

// release counts a call of scope out.
func (l *tenantLimit) release(scope storage.TenantScope) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight[scope]--; l.inFlight[scope] <= 0 {
		delete(l.inFlight, scope)
	}
}

// interceptor applies the bound to every call.
func (l *tenantLimit) interceptor() connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			p, ok := auth.From(ctx)
			if !ok {
				return nil, connect.NewError(connect.CodeUnauthenticated, auth.ErrUnauthenticated)
			}
			s := p.Scope()
			if !l.acquire(s) {
				return nil, connect.NewError(connect.CodeResourceExhausted,
					fmt.Errorf("%w: more than %d calls of this tenant in flight", errBusy, l.max))
			}
			defer l.release(s)
			return next(ctx, req)
		}
	})
}

// errBusy reports a tenant at its bound of calls in flight.
var errBusy = errors.New("too many concurrent calls")
