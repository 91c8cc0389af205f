package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The null webhook is the floor a conversion webhook cannot go below: it
// decodes the review, rewrites only apiVersion in each object and encodes the
// response, over TLS with the settings claimbridge uses (TLS 1.2+ with ECDHE
// AEAD suites, HTTP/1.1 only, same server timeouts). It runs as its own
// process (the benchmark binary re-executed with -null-webhook) so that its
// CPU and memory are measured apart. Its /validate and /default allow every
// admission review, the floor for the status block (status.go).

var nullReviews, nullObjects, nullAdmissions atomic.Int64

func runNullWebhook(addr, certDir string) error {
	cert, err := tls.LoadX509KeyPair(filepath.Join(certDir, "tls.crt"), filepath.Join(certDir, "tls.key"))
	if err != nil {
		return err
	}
	cfg := &tls.Config{
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"http/1.1"},
		Certificates: []tls.Certificate{cert},
		CipherSuites: []uint16{
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
		},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/convert", nullConvert)
	mux.HandleFunc("/validate", nullAdmit)
	mux.HandleFunc("/default", nullAdmit)
	mux.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "%d %d %d\n", nullReviews.Load(), nullObjects.Load(), nullAdmissions.Load())
	})
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler: mux, TLSConfig: cfg, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second,
	}
	return srv.Serve(tls.NewListener(l, cfg))
}

func nullConvert(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var review apiextensionsv1.ConversionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	req := review.Request
	out := make([]runtime.RawExtension, len(req.Objects))
	for i, o := range req.Objects {
		var obj map[string]interface{}
		dec := json.NewDecoder(bytes.NewReader(o.Raw))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil {
			http.Error(w, "bad object", http.StatusBadRequest)
			return
		}
		av, _ := obj["apiVersion"].(string)
		group, _, _ := strings.Cut(av, "/")
		obj["apiVersion"] = group + "/" + strings.TrimPrefix(req.DesiredAPIVersion, group+"/")
		out[i].Raw, _ = json.Marshal(obj)
	}
	nullReviews.Add(1)
	nullObjects.Add(int64(len(out)))
	data, _ := json.Marshal(&apiextensionsv1.ConversionReview{TypeMeta: review.TypeMeta, Response: &apiextensionsv1.ConversionResponse{
		UID: req.UID, ConvertedObjects: out, Result: metav1.Status{Status: metav1.StatusSuccess},
	}})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}

// nullAdmit allows every admission review, without a patch.
func nullAdmit(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	nullAdmissions.Add(1)
	data, _ := json.Marshal(&admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: &admissionv1.AdmissionResponse{
		UID: review.Request.UID, Allowed: true,
	}})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}
