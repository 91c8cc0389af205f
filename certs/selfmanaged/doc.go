// Package selfmanaged keeps claimbridge's serving certificate in the cluster
// without cert-manager, using open-policy-agent/cert-controller (the rotator
// Gatekeeper uses):
//
//   - one Secret (which must exist, possibly empty) holds a CA (ca.crt,
//     ca.key) and a serving certificate (tls.crt, tls.key); the rotator
//     creates them, renews the serving certificate LookaheadInterval before it
//     expires, checking every RotationCheckFrequency, and the CA likewise;
//   - the CA is injected into spec.conversion.webhook.clientConfig.caBundle
//     of the named CRDs and into every webhook of the named
//     ValidatingWebhookConfiguration, and re-injected whenever one of them
//     changes;
//   - a second controller copies ca.crt, tls.crt and tls.key from the Secret
//     into the server's --cert-dir (key first, each by atomic rename), so the
//     server's file-reloading TLS serves a renewed certificate without a
//     restart and without a Secret volume. A serving certificate of the CA
//     that is not valid for every DNS name, which the rotator keeps (it
//     checks the first name only), it also removes from the Secret, so that
//     the rotator issues one for every name; a CA key the rotator keeps but
//     cannot sign with (PKCS #8, not RSA) it writes in PKCS #1 or removes;
//   - Ready is closed once the files are in the cert dir and the CA is
//     injected; the command starts the webhook listener only then, so a pod
//     is never ready before the apiserver trusts it.
//
// Replicas agree on one Secret through the apiserver's optimistic
// concurrency: every replica runs the rotator (no leader election, so every
// replica becomes ready), an update that loses a race gets a conflict and is
// retried against the Secret the winner wrote, which is then valid and is
// kept. The serving certificate is renewed with the same CA, so both the old
// and the new certificate verify against the injected caBundle and a renewal
// fails no request. A CA renewal (every CACertDuration - LookaheadInterval,
// ten years minus 90 days by default) replaces the caBundle; requests that
// reach a replica still serving the old certificate in the second before its
// cert dir is updated can fail then.
package selfmanaged
