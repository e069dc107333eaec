package vector

import (
	"fmt"
	"math"
)

// distance returns how far a is from b under m, lower is nearer, for
// vectors of equal length. qnorm is ‖a‖, precomputed once per query for
// cosine. Accumulation is in float64 so that the order of results does not
// hinge on float32 rounding.
func distance(m Metric, a, b []float32, qnorm float64) float64 {
	switch m {
	case Cosine:
		var dot, nb float64
		for i, x := range a {
			y := float64(b[i])
			dot += float64(x) * y
			nb += y * y
		}
		if nb == 0 {
			return 1
		}
		return 1 - dot/(qnorm*math.Sqrt(nb))
	case Dot:
		var dot float64
		for i, x := range a {
			dot += float64(x) * float64(b[i])
		}
		return -dot
	default: // L2
		var sum float64
		for i, x := range a {
			d := float64(x) - float64(b[i])
			sum += d * d
		}
		return math.Sqrt(sum)
	}
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// checkVector validates v against model m.
func checkVector(m Model, v []float32) error {
	if len(v) != m.Dimension {
		return fmt.Errorf("model %q wants dimension %d, got %d: %w", m.Name, m.Dimension, len(v), ErrDimensionMismatch)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("component %d is %v: %w", i, x, ErrInvalidVector)
		}
	}
	if m.Metric == Cosine && norm(v) == 0 {
		return fmt.Errorf("zero vector under cosine model %q: %w", m.Name, ErrInvalidVector)
	}
	return nil
}
