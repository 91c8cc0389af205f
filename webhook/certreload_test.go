package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// certPair is a generated CA, serving certificate (leaf then CA) and key;
// leaf is the serving certificate's DER, what a TLS client is shown.
type certPair struct {
	ca, cert, key, leaf []byte
}

func newCertPairs(t *testing.T, n int) []certPair {
	t.Helper()
	pairs := make([]certPair, n)
	for i := range pairs {
		ca, cert, key, err := GenerateCertificates(nil)
		if err != nil {
			t.Fatal(err)
		}
		block, _ := pem.Decode(cert)
		pairs[i] = certPair{ca: ca, cert: cert, key: key, leaf: block.Bytes}
	}
	return pairs
}

// servedLeaf dials addr trusting only caPEM and returns the leaf the server
// presented; an error if the handshake fails (e.g. the server still serves
// a certificate of another CA).
func servedLeaf(addr string, caPEM []byte) ([]byte, error) {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "localhost"})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Raw, nil
}

// trackedRunner counts the loads of the content it wraps that are in
// flight at once: a RunOnce for its duration, and a Run for all of its
// own, which its worker makes while it runs.
type trackedRunner struct {
	dynamiccertificates.ControllerRunner
	inFlight, most, onces atomic.Int32
}

func (r *trackedRunner) enter() {
	n := r.inFlight.Add(1)
	for m := r.most.Load(); n > m && !r.most.CompareAndSwap(m, n); m = r.most.Load() {
	}
}

func (r *trackedRunner) RunOnce(ctx context.Context) error {
	r.enter()
	defer r.inFlight.Add(-1)
	defer r.onces.Add(1)
	return r.ControllerRunner.RunOnce(ctx)
}

func (r *trackedRunner) Run(ctx context.Context, workers int) {
	r.enter()
	defer r.inFlight.Add(-1)
	r.ControllerRunner.Run(ctx, workers)
}

func (r *trackedRunner) Name() string {
	return r.ControllerRunner.(interface{ Name() string }).Name()
}

// TestCertReloadsOneAtATime: the serving pair and the client CA are each
// loaded by one goroutine at a time, whatever asks for the load (file
// events, the poll). The library's loads read the files, then store what
// they read without a lock; two at once can store out of order, the older
// pair last, and the server then serves it until the next reload. Here the
// pair and the CA rotate twenty times, Secret-volume style, under a 1 ms
// poll.
func TestCertReloadsOneAtATime(t *testing.T) {
	const rotations = 20
	dir := t.TempDir()
	pairs := newCertPairs(t, rotations+1)
	files := func(p certPair) map[string][]byte {
		return map[string][]byte{CertFileName: p.cert, KeyFileName: p.key, "client-ca.crt": p.ca}
	}
	writeAtomic(t, dir, "0", files(pairs[0]))
	c := testConfig(dir)
	c.ClientCAFile = filepath.Join(dir, "client-ca.crt")
	s, err := newServingTLS(&c, filepath.Join(dir, CertFileName), filepath.Join(dir, KeyFileName), newMetrics(), logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	s.interval = time.Millisecond
	tracked := track(s)
	stop := runReloads(s)
	for i := 1; i <= rotations; i++ {
		writeAtomic(t, dir, strconv.Itoa(i), files(pairs[i]))
		if err := os.RemoveAll(filepath.Join(dir, "..ts-"+strconv.Itoa(i-1))); err != nil {
			t.Fatal(err)
		}
	}
	newest := pairs[rotations]
	eventually(t, "the newest pair and CA loaded, and 20 polls of each", func() bool {
		cert, _ := s.serving.CurrentCertKeyContent()
		for _, r := range tracked {
			if r.onces.Load() < rotations {
				return false
			}
		}
		ca, ok := tracked[1].ControllerRunner.(*dynamiccertificates.DynamicFileCAContent)
		return bytes.Equal(cert, newest.cert) && ok && bytes.Equal(ca.CurrentCABundleContent(), newest.ca)
	})
	stop()
	for _, r := range tracked {
		if got := r.most.Load(); got != 1 {
			t.Errorf("%s: %d loads in flight at once, want 1", r.Name(), got)
		}
	}
}

// TestCertReloadByWatch: with the poll off, file-system events alone bring
// the newest of ten rapid rotations to new TLS connections, whatever way
// the files are replaced: the kubelet's Secret volume (symlinks through
// ..data, swapped atomically, the old data directory then removed), a
// writer that rewrites the certificate then the key in place, or renames
// each into place, files deleted and written again, the whole directory
// deleted and created again (the watch must come back on it), and links to
// files in another directory, written there in place.
func TestCertReloadByWatch(t *testing.T) {
	const rotations = 10
	write := func(t *testing.T, dir, name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	plain := func(t *testing.T, dir string, _ int, p certPair) {
		write(t, dir, CertFileName, p.cert)
		write(t, dir, KeyFileName, p.key)
	}
	for name, tc := range map[string]struct {
		first  func(t *testing.T, dir string, p certPair)
		rotate func(t *testing.T, dir string, i int, p certPair)
	}{
		"secret-volume": {
			first: func(t *testing.T, dir string, p certPair) {
				writeAtomic(t, dir, "0", map[string][]byte{CertFileName: p.cert, KeyFileName: p.key})
			},
			rotate: func(t *testing.T, dir string, i int, p certPair) {
				writeAtomic(t, dir, strconv.Itoa(i), map[string][]byte{CertFileName: p.cert, KeyFileName: p.key})
				if err := os.RemoveAll(filepath.Join(dir, "..ts-"+strconv.Itoa(i-1))); err != nil {
					t.Fatal(err)
				}
			},
		},
		"links-to-files-written-in-place": { // a watch on the cert dir alone sees nothing
			first: func(t *testing.T, dir string, p certPair) {
				data := filepath.Join(filepath.Dir(dir), "data")
				if err := os.Mkdir(data, 0o700); err != nil {
					t.Fatal(err)
				}
				plain(t, data, 0, p)
				for _, f := range []string{CertFileName, KeyFileName} {
					if err := os.Symlink(filepath.Join(data, f), filepath.Join(dir, f)); err != nil {
						t.Fatal(err)
					}
				}
			},
			rotate: func(t *testing.T, dir string, i int, p certPair) {
				plain(t, filepath.Join(filepath.Dir(dir), "data"), i, p)
			},
		},
		"cert-then-key-in-place": {
			first:  func(t *testing.T, dir string, p certPair) { plain(t, dir, 0, p) },
			rotate: plain,
		},
		"cert-then-key-renamed": {
			first: func(t *testing.T, dir string, p certPair) { plain(t, dir, 0, p) },
			rotate: func(t *testing.T, dir string, _ int, p certPair) {
				for _, f := range []struct {
					name string
					data []byte
				}{{CertFileName, p.cert}, {KeyFileName, p.key}} {
					if err := writeFileAtomic(filepath.Join(dir, f.name), f.data, 0o600); err != nil {
						t.Fatal(err)
					}
				}
			},
		},
		"deleted-and-recreated": {
			first: func(t *testing.T, dir string, p certPair) { plain(t, dir, 0, p) },
			rotate: func(t *testing.T, dir string, i int, p certPair) {
				for _, f := range []string{CertFileName, KeyFileName} {
					if err := os.Remove(filepath.Join(dir, f)); err != nil {
						t.Fatal(err)
					}
				}
				plain(t, dir, i, p)
			},
		},
		"directory-recreated": {
			first: func(t *testing.T, dir string, p certPair) { plain(t, dir, 0, p) },
			rotate: func(t *testing.T, dir string, i int, p certPair) {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				plain(t, dir, i, p)
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "certs")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			pairs := newCertPairs(t, rotations+1)
			tc.first(t, dir, pairs[0])
			ts := startServer(t, func(c *Config) { c.CertDir = dir; c.CertReloadInterval = 0 })
			if leaf, err := servedLeaf(ts.Addr().String(), pairs[0].ca); err != nil || !bytes.Equal(leaf, pairs[0].leaf) {
				t.Fatalf("before the rotations: %v, or not the first certificate", err)
			}
			for i := 1; i <= rotations; i++ {
				tc.rotate(t, dir, i, pairs[i])
			}
			newest := pairs[rotations]
			eventually(t, "the newest certificate to be served", func() bool {
				leaf, err := servedLeaf(ts.Addr().String(), newest.ca)
				return err == nil && bytes.Equal(leaf, newest.leaf)
			})
		})
	}
}

// TestCertReloadByPoll: with no file watch, the poll alone brings the
// newest of ten rapid Secret-volume rotations of the serving pair and the
// client CA to new TLS connections, and the first client CA's certificates
// are refused from then on.
func TestCertReloadByPoll(t *testing.T) {
	const rotations = 10
	dir := t.TempDir()
	pairs := newCertPairs(t, rotations+1)
	clientCAs := make([][]byte, rotations+1)
	clientCerts := make([]tls.Certificate, rotations+1)
	for i := range clientCAs {
		clientCAs[i], clientCerts[i] = clientCert(t)
	}
	files := func(i int) map[string][]byte {
		return map[string][]byte{CertFileName: pairs[i].cert, KeyFileName: pairs[i].key, "client-ca.crt": clientCAs[i]}
	}
	writeAtomic(t, dir, "0", files(0))
	c := testConfig(dir)
	c.ClientCAFile = filepath.Join(dir, "client-ca.crt")
	s, err := newServingTLS(&c, filepath.Join(dir, CertFileName), filepath.Join(dir, KeyFileName), newMetrics(), logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	s.interval, s.pollOnly = 10*time.Millisecond, true
	tracked := track(s)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", s.config)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // one byte after a handshake: the client sees its certificate accepted
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				if conn.(*tls.Conn).Handshake() == nil {
					_, _ = conn.Write([]byte{1})
				}
			}()
		}
	}()
	accepted := func(i, client int) bool {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pairs[i].ca)
		conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: pool, ServerName: "localhost", Certificates: []tls.Certificate{clientCerts[client]}})
		if err != nil {
			return false
		}
		defer conn.Close()
		_, err = conn.Read(make([]byte, 1))
		return err == nil && bytes.Equal(conn.ConnectionState().PeerCertificates[0].Raw, pairs[i].leaf)
	}
	defer runReloads(s)()
	// Run's first reload, at its start, would read the rotations too.
	eventually(t, "Run's first reload", func() bool { return tracked[0].onces.Load() > 0 && tracked[1].onces.Load() > 0 })
	if !accepted(0, 0) {
		t.Fatal("before the rotations: the first pair not served, or the first client CA not trusted")
	}
	for i := 1; i <= rotations; i++ {
		writeAtomic(t, dir, strconv.Itoa(i), files(i))
		if err := os.RemoveAll(filepath.Join(dir, "..ts-"+strconv.Itoa(i-1))); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the newest pair served and the newest client CA trusted", func() bool { return accepted(rotations, rotations) })
	if accepted(rotations, 0) {
		t.Error("the first client CA's certificate is still accepted")
	}
}

// TestCertWatchReturnsAfterDirectoryRecreated: the directory of the files
// deleted loses its watch, and nothing sees it created again but the
// retry, which sets the watch again and reloads; from then on the watch
// alone, with the poll off, brings a new client CA.
func TestCertWatchReturnsAfterDirectoryRecreated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	pairs := newCertPairs(t, 2)
	caFile := filepath.Join(dir, "client-ca.crt")
	write := func(p certPair, clientCA []byte) {
		t.Helper()
		for name, data := range map[string][]byte{CertFileName: p.cert, KeyFileName: p.key, "client-ca.crt": clientCA} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write(pairs[0], pairs[0].ca)
	var mu sync.Mutex
	var logged []string
	log := funcr.New(func(_, args string) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, args)
	}, funcr.Options{})
	hasLogged := func(msg string) bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.ContainsFunc(logged, func(l string) bool { return strings.Contains(l, `"msg"="`+msg+`"`) })
	}
	c := testConfig(dir)
	c.ClientCAFile = caFile
	s, err := newServingTLS(&c, filepath.Join(dir, CertFileName), filepath.Join(dir, KeyFileName), newMetrics(), log)
	if err != nil {
		t.Fatal(err)
	}
	s.interval = 0
	tracked := track(s)
	ca := tracked[1].ControllerRunner.(*dynamiccertificates.DynamicFileCAContent)
	defer runReloads(s)()
	eventually(t, "Run's first reload", func() bool { return tracked[0].onces.Load() > 0 && tracked[1].onces.Load() > 0 })

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the lost watch reported", func() bool { return hasLogged("Watching the certificate files failed; retrying") })
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write(pairs[1], pairs[0].ca)
	eventually(t, "the watch set again and the new pair loaded", func() bool {
		cert, _ := s.serving.CurrentCertKeyContent()
		return hasLogged("Watching the certificate files again") && bytes.Equal(cert, pairs[1].cert)
	})
	// The files are whole: no reload fails from here on, so none is
	// retried; only a file event can bring the new client CA.
	if err := writeFileAtomic(caFile, pairs[1].ca, 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the new client CA loaded", func() bool { return bytes.Equal(ca.CurrentCABundleContent(), pairs[1].ca) })
}

// track wraps the loaders of s in trackedRunners, which count their loads.
func track(s *servingTLS) []*trackedRunner {
	tracked := make([]*trackedRunner, len(s.files))
	for i, f := range s.files {
		tracked[i] = &trackedRunner{ControllerRunner: f}
		s.files[i] = tracked[i]
	}
	return tracked
}

// runReloads runs s.Run until stop is called; stop returns once Run has.
func runReloads(s *servingTLS) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}
