package main

import "testing"

func TestDialFailures(t *testing.T) {
	kinds := map[string]int{
		`Post "https://ADDR/validate": dial tcp ADDR: socket: too many open files`:              70,
		`Post "https://ADDR/validate": dial tcp ADDR: connect: cannot assign requested address`: 5,
		`Post "https://ADDR/convert": TLS handshake timeout`:                                    3,
		"client: too many requests outstanding":                                                 400,
		`Post "https://ADDR/validate": EOF`:                                                     2,
	}
	if got := dialFailures(kinds); got != 78 {
		t.Errorf("dialFailures = %d, want 78 (dials and handshake timeouts only)", got)
	}
}
