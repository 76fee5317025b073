// One HTTP POST through libcurl's easy interface (see rk_webhook.h): the variadic calls Swift cannot make.
#include "rk_webhook.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

typedef CURL *(*init_fn)(void);
typedef CURLcode (*setopt_fn)(CURL *, CURLoption, ...);
typedef CURLcode (*perform_fn)(CURL *);
typedef CURLcode (*getinfo_fn)(CURL *, CURLINFO, ...);
typedef void (*cleanup_fn)(CURL *);
typedef struct curl_slist *(*append_fn)(struct curl_slist *, const char *);
typedef void (*free_all_fn)(struct curl_slist *);

/// The answer's body goes nowhere: without this libcurl writes it to standard output, where the level
/// lines are.
static size_t rk_discard(char *data, size_t size, size_t count, void *user) {
    (void)data;
    (void)user;
    return size * count;
}

long rk_webhook_post(const struct rk_curl_calls *calls, const char *url, const char *body, long timeout_ms,
                     char *error, size_t error_size) {
    setopt_fn setopt = (setopt_fn)calls->easy_setopt;
    CURL *curl = ((init_fn)calls->easy_init)();
    if (curl == NULL) {
        snprintf(error, error_size, "libcurl could not begin a transfer");
        return 0;
    }
    struct curl_slist *headers = ((append_fn)calls->slist_append)(NULL, "Content-Type: application/json");
    char reason[CURL_ERROR_SIZE] = "";
    setopt(curl, CURLOPT_URL, url);
    setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    setopt(curl, CURLOPT_HTTPHEADER, headers);
    setopt(curl, CURLOPT_POSTFIELDS, body);
    setopt(curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    setopt(curl, CURLOPT_NOSIGNAL, 1L);
    setopt(curl, CURLOPT_WRITEFUNCTION, rk_discard);
    setopt(curl, CURLOPT_ERRORBUFFER, reason);
    setopt(curl, CURLOPT_USERAGENT, "recorder");
    long status = 0;
    CURLcode code = ((perform_fn)calls->easy_perform)(curl);
    if (code == CURLE_OK) {
        ((getinfo_fn)calls->easy_getinfo)(curl, CURLINFO_RESPONSE_CODE, &status);
    } else if (code == CURLE_OPERATION_TIMEDOUT) {
        status = -1;
    } else {
        snprintf(error, error_size, "%s", reason[0] != '\0' ? reason : "the transfer failed");
    }
    ((cleanup_fn)calls->easy_cleanup)(curl);
    if (headers != NULL) ((free_all_fn)calls->slist_free_all)(headers);
    return status;
}
