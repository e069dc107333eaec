package storage

import (
	"math"
	"time"
)

// Timestamp is a point in valid or transaction time: microseconds since the
// Unix epoch, UTC. It is signed because valid time may precede 1970;
// microseconds cover about ±292,000 years, enough for historical facts.
type Timestamp int64

// The extreme timestamps. MaxTimestamp in the sources family is the reserved
// redaction slot and is never a transaction time.
const (
	MinTimestamp Timestamp = math.MinInt64
	MaxTimestamp Timestamp = math.MaxInt64
)

// TimestampOf converts t to a Timestamp, truncating to the microsecond.
func TimestampOf(t time.Time) Timestamp { return Timestamp(t.UnixMicro()) }

// Time returns the timestamp as a UTC time.Time.
func (t Timestamp) Time() time.Time { return time.UnixMicro(int64(t)).UTC() }

// String renders the timestamp in RFC 3339 with microseconds.
func (t Timestamp) String() string { return t.Time().Format("2006-01-02T15:04:05.000000Z07:00") }

// ordered maps a timestamp to a uint64 whose big-endian bytes sort like the
// timestamp: flipping the sign bit moves negative times below positive ones.
func ordered(t Timestamp) uint64 { return uint64(t) ^ (1 << 63) }

// fromOrdered is the inverse of ordered.
func fromOrdered(v uint64) Timestamp { return Timestamp(v ^ (1 << 63)) }

// invert is the one inversion rule: applied to an ordered value it makes later
// times sort first under RocksDB's ascending byte order. It is its own
// inverse. invert(math.MaxUint64) == 0, which is why the reserved redaction
// slot sorts first in the sources family.
func invert(v uint64) uint64 { return ^v }

// inverted is invert(ordered(t)), the encoding of every latest-first
// timestamp field: ordered flips the sign bit and invert flips every bit, so
// together they flip every bit but the sign bit. It is spelled as that one
// expression, not as the two calls, to keep the key setters within the
// inliner's budget; a property test holds it equal to invert(ordered(t)).
func inverted(t Timestamp) uint64 { return uint64(t) ^ (1<<63 - 1) }
