package main

import "testing"

func TestCores(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want string
	}{
		{nil, "[]"},
		{[]float64{0.5}, "[0.50]"},
		{[]float64{1.234, 0.005, 1.996}, "[1.23 0.01 2.00]"},
	} {
		if got := cores(tc.in); got != tc.want {
			t.Errorf("cores(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
