package auth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"connectrpc.com/connect"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/credentials"
)

// ErrUnauthenticated is the one answer to every request whose credential
// authenticates nothing. Its text says nothing of why.
var ErrUnauthenticated = errors.New("unauthenticated: send Authorization: Bearer TOKEN with a valid API key")

// Authenticator checks credentials against the keys of a store.
type Authenticator struct {
	store storage.Reader
	log   *slog.Logger
	now   func() time.Time
}

// New returns an Authenticator of the keys in store, logging refusals to
// log (nil: not at all).
func New(store storage.Reader, log *slog.Logger) *Authenticator {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Authenticator{store: store, log: log, now: time.Now}
}

// authenticate returns the principal of the Authorization header values,
// or ErrUnauthenticated; an engine failure is returned as it is.
func (a *Authenticator) authenticate(ctx context.Context, values []string) (Principal, error) {
	tok, err := ParseAuthorization(values)
	if err != nil {
		a.log.LogAttrs(ctx, slog.LevelInfo, "refused a request", slog.String("reason", err.Error()))
		return Principal{}, ErrUnauthenticated
	}
	k, err := credentials.Authenticate(a.store, tok, a.now())
	if errors.Is(err, credentials.ErrUnauthenticated) {
		// The reason names the key id, never the secret.
		a.log.LogAttrs(ctx, slog.LevelInfo, "refused a request", slog.String("reason", err.Error()))
		return Principal{}, ErrUnauthenticated
	}
	if err != nil {
		a.log.LogAttrs(ctx, slog.LevelError, "authentication failed", slog.String("error", err.Error()))
		return Principal{}, err
	}
	return Principal{key: k, checked: a.now()}, nil
}

// Interceptor returns the Connect interceptor that authenticates every
// call and hands its handler the principal in the context. A call that
// RPCMiddleware authenticated passes on its principal: the interceptor is
// the check of last resort, for a handler mounted without the middleware.
func (a *Authenticator) Interceptor() connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			if _, ok := From(ctx); ok {
				return next(ctx, req)
			}
			p, err := a.Check(ctx, req.Header().Values("Authorization"))
			if err != nil {
				return nil, err
			}
			return next(withPrincipal(ctx, p), req)
		}
	})
}

// Check returns the principal of the Authorization header values, or a
// Connect error: unauthenticated, or unavailable when the store cannot
// tell. A call that waited long for its turn checks again with it, since
// its key may have been revoked, or its tenant erased, meanwhile.
func (a *Authenticator) Check(ctx context.Context, values []string) (Principal, error) {
	p, err := a.authenticate(ctx, values)
	switch {
	case errors.Is(err, ErrUnauthenticated):
		return Principal{}, connect.NewError(connect.CodeUnauthenticated, ErrUnauthenticated)
	case err != nil:
		return Principal{}, connect.NewError(connect.CodeUnavailable, errors.New("the store cannot check credentials now"))
	}
	return p, nil
}

// RPCMiddleware returns a Connect handler behind authentication, refusing
// a request without a valid credential in the protocol it speaks
// (Connect, gRPC or gRPC-Web) before a byte of its body is read:
// connect-go reads, decompresses and decodes a request before its
// interceptors run, so behind the interceptor alone an anonymous client
// could make the server inflate and decode a message for the cost of a
// few compressed bytes. refused is told of each refusal (for metrics).
func (a *Authenticator) RPCMiddleware(next http.Handler, refused func(error)) http.Handler {
	errs := connect.NewErrorWriter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := a.Check(r.Context(), r.Header.Values("Authorization"))
		if err != nil {
			refused(err)
			_ = errs.Write(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), p)))
	})
}

// Middleware returns next behind authentication: a request without a
// valid credential gets 401 with a WWW-Authenticate: Bearer challenge.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := a.authenticate(r.Context(), r.Header.Values("Authorization"))
		switch {
		case errors.Is(err, ErrUnauthenticated):
			w.Header().Set("WWW-Authenticate", `Bearer realm="telha"`)
			http.Error(w, ErrUnauthenticated.Error(), http.StatusUnauthorized)
			return
		case err != nil:
			http.Error(w, "the store cannot check credentials now", http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), p)))
	})
}
