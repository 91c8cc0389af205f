package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// runNull answers every review with a minimal allowed (AdmissionReview) or
// success (ConversionReview) response, over claimbridge's TLS: TLS 1.3,
// HTTP/1.1 only, the same certificate. /healthz is on a plain listener.
func runNull(certDir, addr, health string) error {
	cert, err := tls.LoadX509KeyPair(filepath.Join(certDir, "tls.crt"), filepath.Join(certDir, "tls.key"))
	if err != nil {
		return err
	}
	review := func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			APIVersion, Kind string
			Request          struct{ UID string }
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		resp := map[string]any{"uid": in.Request.UID, "allowed": true}
		if in.Kind == "ConversionReview" {
			resp = map[string]any{"uid": in.Request.UID, "convertedObjects": []any{}, "result": map[string]string{"status": "Success"}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": in.APIVersion, "kind": in.Kind, "response": resp})
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hl, err := net.Listen("tcp", health)
	if err != nil {
		return err
	}
	hmux := http.NewServeMux()
	hmux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	go func() { _ = http.Serve(hl, hmux) }()
	srv := &http.Server{Handler: http.HandlerFunc(review), TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){}}
	go func() {
		_ = srv.Serve(tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13, NextProtos: []string{"http/1.1"}}))
	}()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return srv.Close()
}
