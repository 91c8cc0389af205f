package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// runNull serves /convert and /validate with claimbridge's TLS settings
// (TLS 1.3, HTTP/1.1 only, same certificate, same server timeouts) but
// only decodes each review and answers success: the floor that claimbridge
// is compared with. /healthz is on its own plain listener, as claimbridge's.
func runNull(certDir, addr, health string) error {
	cert, err := tls.LoadX509KeyPair(filepath.Join(certDir, "tls.crt"), filepath.Join(certDir, "tls.key"))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/convert", func(w http.ResponseWriter, r *http.Request) {
		var review struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Request    struct {
				UID     string            `json:"uid"`
				Objects []json.RawMessage `json:"objects"`
			} `json:"request"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &review) != nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		for _, o := range review.Request.Objects { // decode each object, as a converter must
			var m map[string]interface{}
			_ = json.Unmarshal(o, &m)
		}
		writeJSON(w, map[string]interface{}{"apiVersion": review.APIVersion, "kind": review.Kind,
			"response": map[string]interface{}{"uid": review.Request.UID, "convertedObjects": review.Request.Objects, "result": map[string]string{"status": "Success"}}})
	})
	mux.HandleFunc("/validate", func(w http.ResponseWriter, r *http.Request) {
		var review struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Request    struct {
				UID       string          `json:"uid"`
				Object    json.RawMessage `json:"object"`
				OldObject json.RawMessage `json:"oldObject"`
			} `json:"request"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &review) != nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		for _, o := range []json.RawMessage{review.Request.Object, review.Request.OldObject} {
			var m map[string]interface{}
			_ = json.Unmarshal(o, &m)
		}
		writeJSON(w, map[string]interface{}{"apiVersion": review.APIVersion, "kind": review.Kind,
			"response": map[string]interface{}{"uid": review.Request.UID, "allowed": true}})
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hl, err := net.Listen("tcp", health)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second}
	hmux := http.NewServeMux()
	hmux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	go func() { _ = http.Serve(hl, hmux) }()
	go func() {
		_ = srv.Serve(tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13, NextProtos: []string{"http/1.1"}}))
	}()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return srv.Close()
}

func writeJSON(w http.ResponseWriter, v interface{}) {
	data, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}
