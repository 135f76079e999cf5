/*
 * Signed JWTs for the authorization checks (abi_auth.c), minted by this program: an RSA key
 * generated per run with OpenSSL's libcrypto (the system's, as any C host would use), its
 * public JWK, and RS256 tokens over claims the checks choose. Test-side only: the library
 * under test verifies them with its own crates.
 */
#include "abi_test.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

struct test_key {
    EVP_PKEY *pkey;
    char kid[32];
    char *jwk;
};

/* base64url without padding of n bytes, malloc'd. */
static char *b64url(const unsigned char *in, size_t n) {
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char *out = malloc(4 * ((n + 2) / 3) + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = abc[v >> 18 & 63];
        out[o++] = abc[v >> 12 & 63];
        if (i + 1 < n) out[o++] = abc[v >> 6 & 63];
        if (i + 2 < n) out[o++] = abc[v & 63];
    }
    out[o] = '\0';
    return out;
}

/* A big-number parameter of the key (n or e) as base64url of its big-endian bytes. */
static char *param_b64(EVP_PKEY *pkey, const char *name) {
    BIGNUM *bn = NULL;
    if (!EVP_PKEY_get_bn_param(pkey, name, &bn)) {
        return NULL;
    }
    int len = BN_num_bytes(bn);
    unsigned char *bytes = malloc((size_t)len);
    BN_bn2bin(bn, bytes);
    char *out = b64url(bytes, (size_t)len);
    free(bytes);
    BN_free(bn);
    return out;
}

test_key *test_key_new(const char *kid) {
    test_key *k = calloc(1, sizeof *k);
    k->pkey = EVP_RSA_gen(2048);
    if (!k->pkey) {
        free(k);
        return NULL;
    }
    snprintf(k->kid, sizeof k->kid, "%s", kid);
    char *n = param_b64(k->pkey, OSSL_PKEY_PARAM_RSA_N), *e = param_b64(k->pkey, OSSL_PKEY_PARAM_RSA_E);
    size_t cap = strlen(n) + strlen(e) + 128;
    k->jwk = malloc(cap);
    snprintf(k->jwk, cap, "{\"kty\":\"RSA\",\"kid\":\"%s\",\"alg\":\"RS256\",\"n\":\"%s\",\"e\":\"%s\"}", kid, n, e);
    free(n);
    free(e);
    return k;
}

const char *test_key_jwk(const test_key *k) { return k->jwk; }

char *test_jwt(const test_key *k, const char *claims_json) {
    char header[96];
    int hn = k ? snprintf(header, sizeof header, "{\"alg\":\"RS256\",\"kid\":\"%s\",\"typ\":\"JWT\"}", k->kid)
               : snprintf(header, sizeof header, "{\"alg\":\"none\",\"typ\":\"JWT\"}");
    char *h = b64url((const unsigned char *)header, (size_t)hn);
    char *c = b64url((const unsigned char *)claims_json, strlen(claims_json));
    size_t input_len = strlen(h) + 1 + strlen(c);
    char *token = malloc(input_len + 2 + 4 * 512 / 3 + 8);
    sprintf(token, "%s.%s.", h, c);
    free(h);
    free(c);
    if (!k) {
        return token; /* alg none: no signature */
    }
    unsigned char sig[512];
    size_t sig_len = sizeof sig;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    bool ok = md && EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, k->pkey) == 1 &&
              EVP_DigestSign(md, sig, &sig_len, (const unsigned char *)token, input_len) == 1;
    EVP_MD_CTX_free(md);
    if (!ok) {
        free(token);
        return NULL;
    }
    char *s = b64url(sig, sig_len);
    strcat(token, s);
    free(s);
    return token;
}

void test_key_free(test_key *k) {
    if (k) {
        EVP_PKEY_free(k->pkey);
        free(k->jwk);
        free(k);
    }
}
