package jobs

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestParseHandleRefuses(t *testing.T) {
	valid := Lease{Job: Job{Ref: Ref{ID: uuid.New(), Created: time.UnixMicro(1)}, Owner: "w"}, token: uuid.New()}.Handle()
	for _, s := range []string{
		"", "l1.", "l2." + strings.TrimPrefix(valid, "l1."), valid + "=", valid[:len(valid)-1] + "*",
		Lease{Job: Job{Ref: Ref{ID: uuid.New()}, Owner: "w"}}.Handle(),        // no token
		Lease{Job: Job{Owner: "w"}, token: uuid.New()}.Handle(),               // no id
		Lease{Job: Job{Ref: Ref{ID: uuid.New()}}, token: uuid.New()}.Handle(), // no owner
		Lease{Job: Job{Ref: Ref{ID: uuid.New()}, Owner: strings.Repeat("w", MaxOwnerLen+1)}, token: uuid.New()}.Handle(),
	} {
		if _, err := ParseHandle(s); !errors.Is(err, ErrBadLease) {
			t.Errorf("ParseHandle(%q) = %v, want ErrBadLease", s, err)
		}
	}
}

// FuzzParseHandle checks that the parser never panics and that whatever
// it accepts prints back to the same text. Seeds: a handle and the files
// under testdata/fuzz/FuzzParseHandle.
func FuzzParseHandle(f *testing.F) {
	f.Add(Lease{Job: Job{Ref: Ref{ID: uuid.New(), Priority: PriorityHigh, Created: time.UnixMicro(1700000000000000)}, Owner: "worker"}, token: uuid.New()}.Handle())
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseHandle(s)
		if err != nil {
			if !errors.Is(err, ErrBadLease) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if got := l.Handle(); got != s {
			t.Fatalf("Handle() = %q, want %q", got, s)
		}
	})
}
