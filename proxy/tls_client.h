/* proxy/tls_client.h — the broker's upstream TLS (OpenSSL 3), non-blocking.
 *
 * TlsClient is built once, before the proxy confines itself: OpenSSL is initialised with its
 * configuration file, the system bundle's bytes are read (X509_get_default_cert_file(), e.g.
 * /usr/lib/ssl/cert.pem) and --broker-ca-file is parsed (so a bad one fails the start). The
 * lazily read hash directory is not used: after confinement no file can be opened. The
 * context and its trust store are made on the first session, from those bytes: parsing the
 * ~140 certificates of a system bundle takes ~30 ms with OpenSSL 3, which every sandbox's
 * start would otherwise pay; the first brokered request pays it once (SSL_CTX_new opens no
 * file, so it works confined).
 * Every session: TLS 1.2 or newer, the peer's chain verified against that store, SNI for a
 * name (never for an IP literal), and the name (SSL_set1_host) or the IP address
 * (X509_VERIFY_PARAM_set1_ip_asc) checked against the certificate. A handshake or
 * verification failure is "upstream-tls". An EOF without close_notify counts as EOF: the
 * broker frames every body itself and treats a short one as truncated (only a close-delimited
 * response cannot tell; see docs/limits.md).
 * Io: one call's outcome. After WantRead/WantWrite the same call must be repeated (with the
 * same bytes, for a write) once the socket is ready the way it says.
 */
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <vector>

#include "names.h"

namespace tproxy {

enum class TlsIo { Done, WantRead, WantWrite, Eof, Error };

class TlsClient {
public:
    // nullptr and *err on failure; *warnings: e.g. the system bundle is missing.
    static std::unique_ptr<TlsClient> create(const std::string &ca_file, std::string *err,
                                             std::vector<std::string> *warnings);
    ~TlsClient();
    TlsClient(const TlsClient &) = delete;
    TlsClient &operator=(const TlsClient &) = delete;

    // A client session on the connected socket fd for `host`; nullptr when the context cannot
    // be made or out of memory.
    SSL *session(int fd, const Host &host) const;

private:
    TlsClient() = default;
    SSL_CTX *context() const;  // made on first use

    mutable std::string system_pem_;  // the system bundle's bytes, until the context is made
    std::vector<X509 *> ca_file_;     // --broker-ca-file's certificates (owned)
    mutable SSL_CTX *ctx_ = nullptr;
};

// SSL_connect / SSL_read / SSL_write, classified. *n: bytes moved (read or write, on Done).
TlsIo tls_handshake(SSL *ssl);
TlsIo tls_read(SSL *ssl, char *buf, size_t len, size_t *n);
TlsIo tls_write(SSL *ssl, const char *buf, size_t len, size_t *n);

// Why the handshake failed, for the refusal body: the verification error when there is one
// ("certificate verify failed: unable to get local issuer certificate"), else OpenSSL's reason.
std::string tls_failure(SSL *ssl);

}  // namespace tproxy
