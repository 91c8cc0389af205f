//go:build envtest

package builds

import (
	"io"
	"net"
	"slices"
	"sync"
)

// proxy is the Service in front of the replicas: a TCP proxy that passes TLS
// through untouched and sends each new connection to the next backend of
// its list in turn, as kube-proxy spreads connections over a Service's
// endpoints. kube-apiserver keeps its webhook connections open, so route
// closes every open connection: the calls after it go where it says.
type proxy struct {
	ln net.Listener

	mu       sync.Mutex
	backends []string // addresses, host:port
	next     int      // connections routed since route
	open     map[net.Conn]struct{}
	routed   map[string]int // connections each backend got since route
}

func newProxy(addr string) (*proxy, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	p := &proxy{ln: ln, open: map[net.Conn]struct{}{}, routed: map[string]int{}}
	go p.serve()
	return p, nil
}

// route sends the connections from now on to backends in turn and closes
// those open, so that the next call opens one where route says.
func (p *proxy) route(backends ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.backends, p.next, p.routed = backends, 0, map[string]int{}
	for c := range p.open {
		c.Close()
	}
}

// routesTo reports whether the connections go to backends, in this order,
// as route set them.
func (p *proxy) routesTo(backends ...string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Equal(p.backends, backends)
}

// counts is how many connections each backend got since route.
func (p *proxy) counts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for k, v := range p.routed {
		out[k] = v
	}
	return out
}

// url is the proxy's https base URL.
func (p *proxy) url() string { return "https://" + p.ln.Addr().String() }

func (p *proxy) close() {
	p.ln.Close()
	p.route()
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.pass(c)
	}
}

func (p *proxy) pass(c net.Conn) {
	p.mu.Lock()
	if len(p.backends) == 0 {
		p.mu.Unlock()
		c.Close()
		return
	}
	backend := p.backends[p.next%len(p.backends)]
	p.next++
	p.routed[backend]++
	p.open[c] = struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.open, c)
		p.mu.Unlock()
		c.Close()
	}()
	b, err := net.Dial("tcp", backend)
	if err != nil {
		return
	}
	defer b.Close()
	done := make(chan struct{}, 2)
	go func() { io.Copy(b, c); done <- struct{}{} }()
	go func() { io.Copy(c, b); done <- struct{}{} }()
	<-done
}
