package main

import (
	"slices"
	"testing"
	"time"
)

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

func TestPerMinute(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []int64
		d    time.Duration
		want []int64
	}{
		{"no errors in 10 minutes", nil, 10 * time.Minute, []int64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"a short phase", []int64{1, 2}, 5 * time.Second, []int64{3}},
		{"seconds 59, 60, 61", append(make([]int64, 59), 1, 2, 4), 2 * time.Minute, []int64{1, 6}},
		{"a second past the end counts in the last minute", append(make([]int64, 120), 5), 2 * time.Minute, []int64{0, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := perMinute(tc.in, tc.d); !slices.Equal(got, tc.want) {
				t.Errorf("perMinute = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTimes(t *testing.T) {
	for _, tc := range []struct {
		before, after float64
		want          string
	}{
		{0, 0, "0 times"}, {3, 4, "1 time"}, {1, 3, "2 times"}, {-1, 3, "? times"}, {0, -1, "? times"},
	} {
		if got := times(tc.before, tc.after); got != tc.want {
			t.Errorf("times(%v, %v) = %q, want %q", tc.before, tc.after, got, tc.want)
		}
	}
}

func TestCountSecond(t *testing.T) {
	start := time.Now().Add(-2500 * time.Millisecond)
	got := countSecond(nil, start)
	got = countSecond(got, start)
	if want := []int64{0, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("countSecond twice in second 2: %v, want %v", got, want)
	}
	if got := countSecond(nil, time.Now().Add(time.Hour)); len(got) != 0 {
		t.Errorf("countSecond before the start: %v, want nothing", got)
	}
}
