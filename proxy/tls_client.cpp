/* proxy/tls_client.cpp — OpenSSL client context and non-blocking calls (see tls_client.h). */
#include "tls_client.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace tproxy {
namespace {

// The outcome of an SSL_* call that returned rc. Each call below clears the thread's error
// queue first, so an old error never explains a later call.
TlsIo classify(SSL *ssl, int rc)
{
    int e = SSL_get_error(ssl, rc);
    switch (e) {
    case SSL_ERROR_NONE: return TlsIo::Done;
    case SSL_ERROR_WANT_READ: return TlsIo::WantRead;
    case SSL_ERROR_WANT_WRITE: return TlsIo::WantWrite;
    case SSL_ERROR_ZERO_RETURN:  // close_notify, or (SSL_OP_IGNORE_UNEXPECTED_EOF) a bare EOF
        return TlsIo::Eof;
    default:  // SSL_ERROR_SYSCALL (a reset), SSL_ERROR_SSL: the error queue says why
        return TlsIo::Error;
    }
}

std::string openssl_reason()
{
    unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (e == 0)
        return "the connection ended during the handshake";
    const char *r = ERR_reason_error_string(e);
    return r ? r : "TLS failure";
}

// The certificates of a PEM text (other blocks skipped); appended to *out, owned.
void parse_certificates(const std::string &pem, std::vector<X509 *> *out)
{
    BIO *b = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    STACK_OF(X509_INFO) *infos = b ? PEM_X509_INFO_read_bio(b, nullptr, nullptr, nullptr) : nullptr;
    for (int i = 0; infos && i < sk_X509_INFO_num(infos); i++) {
        X509_INFO *info = sk_X509_INFO_value(infos, i);
        if (info->x509 && X509_up_ref(info->x509) == 1)
            out->push_back(info->x509);
    }
    sk_X509_INFO_pop_free(infos, X509_INFO_free);
    BIO_free(b);
    ERR_clear_error();
}

// The whole file; "" or why not.
std::string read_whole(const char *path, std::string *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        std::string err = std::string(path) + ": " + strerror(errno);
        if (fd >= 0)
            close(fd);
        return err;
    }
    out->resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < out->size()) {
        ssize_t n = read(fd, out->data() + got, out->size() - got);
        if (n <= 0)
            break;
        got += static_cast<size_t>(n);
    }
    close(fd);
    out->resize(got);
    return "";
}

}  // namespace

std::unique_ptr<TlsClient> TlsClient::create(const std::string &ca_file, std::string *err,
                                             std::vector<std::string> *warnings)
{
    if (OPENSSL_init_ssl(OPENSSL_INIT_LOAD_CONFIG | OPENSSL_INIT_LOAD_SSL_STRINGS | OPENSSL_INIT_LOAD_CRYPTO_STRINGS,
                         nullptr) != 1) {
        *err = "cannot initialise OpenSSL: " + openssl_reason();
        return nullptr;
    }
    std::unique_ptr<TlsClient> c(new TlsClient());
    const char *system = X509_get_default_cert_file();
    if (std::string e = read_whole(system, &c->system_pem_); !e.empty())
        warnings->push_back("the system CA bundle " + e + ": only --broker-ca-file is trusted");
    if (!ca_file.empty()) {
        std::string pem;
        if (std::string e = read_whole(ca_file.c_str(), &pem); !e.empty()) {
            *err = "--broker-ca-file " + e;
            return nullptr;
        }
        parse_certificates(pem, &c->ca_file_);
        if (c->ca_file_.empty()) {
            *err = "--broker-ca-file " + ca_file + ": no PEM certificate in it";
            return nullptr;
        }
    }
    return c;
}

TlsClient::~TlsClient()
{
    for (X509 *x : ca_file_)
        X509_free(x);
    SSL_CTX_free(ctx_);
}

SSL_CTX *TlsClient::context() const
{
    if (ctx_)
        return ctx_;
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx)
        return nullptr;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    // Writes resume from wherever the buffer is now; a write may be partial.
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
    std::vector<X509 *> trusted;
    parse_certificates(system_pem_, &trusted);
    std::string().swap(system_pem_);
    X509_STORE *store = SSL_CTX_get_cert_store(ctx);
    for (X509 *x : trusted) {
        X509_STORE_add_cert(store, x);
        X509_free(x);
    }
    for (X509 *x : ca_file_)
        X509_STORE_add_cert(store, x);
    ERR_clear_error();  // a certificate listed twice is not an error worth keeping
    ctx_ = ctx;
    return ctx_;
}

SSL *TlsClient::session(int fd, const Host &host) const
{
    SSL_CTX *ctx = context();
    SSL *ssl = ctx ? SSL_new(ctx) : nullptr;
    if (!ssl)
        return nullptr;
    bool ok = SSL_set_fd(ssl, fd) == 1;
    if (host.kind == HostKind::Name) {
        ok = ok && SSL_set_tlsext_host_name(ssl, host.text.c_str()) == 1;
        ok = ok && SSL_set1_host(ssl, host.text.c_str()) == 1;
        SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    } else {
        ok = ok && X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host.text.c_str()) == 1;
    }
    if (!ok) {
        SSL_free(ssl);
        ERR_clear_error();
        return nullptr;
    }
    SSL_set_connect_state(ssl);
    return ssl;
}

TlsIo tls_handshake(SSL *ssl)
{
    ERR_clear_error();
    return classify(ssl, SSL_connect(ssl));
}

TlsIo tls_read(SSL *ssl, char *buf, size_t len, size_t *n)
{
    ERR_clear_error();
    int rc = SSL_read(ssl, buf, static_cast<int>(len > INT_MAX ? INT_MAX : len));
    *n = rc > 0 ? static_cast<size_t>(rc) : 0;
    return rc > 0 ? TlsIo::Done : classify(ssl, rc);
}

TlsIo tls_write(SSL *ssl, const char *buf, size_t len, size_t *n)
{
    ERR_clear_error();
    int rc = SSL_write(ssl, buf, static_cast<int>(len > INT_MAX ? INT_MAX : len));
    *n = rc > 0 ? static_cast<size_t>(rc) : 0;
    return rc > 0 ? TlsIo::Done : classify(ssl, rc);
}

std::string tls_failure(SSL *ssl)
{
    long v = SSL_get_verify_result(ssl);
    if (v != X509_V_OK) {
        ERR_clear_error();
        return std::string("certificate verify failed: ") + X509_verify_cert_error_string(v);
    }
    return openssl_reason();
}

}  // namespace tproxy
