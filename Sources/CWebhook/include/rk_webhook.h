// One HTTP POST through libcurl's easy interface, its functions found at run time (dlsym) and handed in:
// libcurl's setopt and getinfo are variadic, which Swift cannot call, so the calls are made here, in C.
#ifndef RK_WEBHOOK_H
#define RK_WEBHOOK_H

#include <stddef.h>

/// libcurl's functions as `dlsym` found them (each non-null): curl_easy_init, curl_easy_setopt,
/// curl_easy_perform, curl_easy_getinfo, curl_easy_cleanup, curl_slist_append, curl_slist_free_all.
struct rk_curl_calls {
    void *easy_init;
    void *easy_setopt;
    void *easy_perform;
    void *easy_getinfo;
    void *easy_cleanup;
    void *slist_append;
    void *slist_free_all;
};

/// POSTs `body` (JSON) to `url` (http or https only; no redirects followed; the answer's body discarded,
/// never written anywhere), within `timeout_ms` in all. Returns the HTTP status the server answered; -1 when
/// the time ran out first; 0 when no answer came for another reason, with libcurl's in `error` (`error_size`
/// bytes, at least 256).
/// Safe from any one thread at a time per call (each call has its own transfer; no signals are used).
long rk_webhook_post(const struct rk_curl_calls *calls, const char *url, const char *body, long timeout_ms,
                     char *error, size_t error_size);

#endif
