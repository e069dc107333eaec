package jobs

import (
	"fmt"
	"time"
)

// Defaults for the zero fields of Options.
const (
	DefaultLeaseDuration = 30 * time.Second
	DefaultMaxAttempts   = 5
	DefaultBackoffBase   = time.Second
	DefaultBackoffMax    = 10 * time.Minute
)

// Options configure a Store. The zero value is usable.
type Options struct {
	// Clock returns the current time; nil means time.Now. Tests inject a
	// fake clock to expire leases and backoffs without sleeping.
	Clock func() time.Time

	// LeaseDuration is how long a claim or heartbeat holds a job.
	LeaseDuration time.Duration

	// MaxAttempts is the number of claims a job gets before it is dead,
	// unless its EnqueueOptions override it.
	MaxAttempts int

	// BackoffBase is the wait after the first failure; each further failure
	// doubles it, up to BackoffMax.
	BackoffBase time.Duration
	BackoffMax  time.Duration

	// Durable makes every state change return only once it is on stable
	// storage (Engine.WriteDurable); otherwise the engine's sync policy
	// applies (Engine.Write).
	Durable bool
}

// withDefaults validates o and fills its zero fields.
func (o Options) withDefaults() (Options, error) {
	if o.LeaseDuration < 0 || o.MaxAttempts < 0 || o.BackoffBase < 0 || o.BackoffMax < 0 {
		return o, fmt.Errorf("jobs options: negative duration or attempts: %+v", o)
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.LeaseDuration == 0 {
		o.LeaseDuration = DefaultLeaseDuration
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.BackoffBase == 0 {
		o.BackoffBase = DefaultBackoffBase
	}
	if o.BackoffMax == 0 {
		o.BackoffMax = DefaultBackoffMax
	}
	if o.BackoffMax < o.BackoffBase {
		return o, fmt.Errorf("jobs options: backoff max %s below base %s", o.BackoffMax, o.BackoffBase)
	}
	return o, nil
}

// backoff is the wait after the given failed attempt (1-based): base
// doubled per earlier attempt, capped at max. It is deterministic so that
// tests with a fake clock can predict it.
func (o Options) backoff(attempt uint32) time.Duration {
	d := o.BackoffBase
	for i := uint32(1); i < attempt; i++ {
		if d >= o.BackoffMax/2 {
			return o.BackoffMax
		}
		d *= 2
	}
	return min(d, o.BackoffMax)
}
