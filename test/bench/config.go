package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

type config struct {
	claims, rounds, gets, creates, status int
	soak                                  time.Duration
}

func configFromEnv() (config, error) {
	c := config{claims: 2000, rounds: 3, gets: 200, creates: 100, status: 50}
	for _, v := range []struct {
		name string
		dst  *int
	}{{"N", &c.claims}, {"ROUNDS", &c.rounds}, {"GETS", &c.gets}, {"CREATES", &c.creates}, {"STATUS", &c.status}} {
		s := os.Getenv(v.name)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return c, fmt.Errorf("%s=%q: want a positive integer", v.name, s)
		}
		*v.dst = n
	}
	if c.status > c.claims {
		return c, fmt.Errorf("STATUS=%d: at most N=%d claims", c.status, c.claims)
	}
	if s := os.Getenv("SOAK"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("SOAK=%q: want a positive duration such as 10m", s)
		}
		c.soak = d
	}
	return c, nil
}
