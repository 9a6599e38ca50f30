#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

// libcurl for Swift. curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are
// variadic, which Swift cannot call, so each argument type gets a typed inline wrapper.
#include <curl/curl.h>

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_ptr(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_write_function(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_private(CURL *handle, void **value) {
    return curl_easy_getinfo(handle, CURLINFO_PRIVATE, (char **)value);
}

static inline CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

// The multi handle's event callbacks (curl_multi_socket_action): which sockets libcurl waits
// on, and when it next wants to be called without socket activity.
typedef int (*ccurl_socket_callback)(CURL *easy, curl_socket_t socket, int what, void *userp, void *socketp);
typedef int (*ccurl_timer_callback)(CURLM *multi, long timeout_ms, void *userp);

static inline CURLMcode ccurl_multi_setopt_socket_function(CURLM *multi, ccurl_socket_callback callback, void *userp) {
    CURLMcode result = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, callback);
    if (result != CURLM_OK) return result;
    return curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, userp);
}

static inline CURLMcode ccurl_multi_setopt_timer_function(CURLM *multi, ccurl_timer_callback callback, void *userp) {
    CURLMcode result = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, callback);
    if (result != CURLM_OK) return result;
    return curl_multi_setopt(multi, CURLMOPT_TIMERDATA, userp);
}

// Allows http and https only, for the first request and for redirects. The string forms
// of these options replaced the bit masks in 7.85.0, which deprecated the masks.
static inline CURLcode ccurl_easy_allow_http_only(CURL *handle) {
#if LIBCURL_VERSION_NUM >= 0x075500
    CURLcode result = curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    if (result != CURLE_OK) return result;
    return curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    CURLcode result = curl_easy_setopt(handle, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    if (result != CURLE_OK) return result;
    return curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}

// CURLOPT_PREREQFUNCTION (7.80.0): called once the connection is ready, right before the
// request is sent; the transport uses it to know whether a failed request can have left.
// Older libcurl has no such moment: the setter then reports the option as unknown.
typedef int (*ccurl_prereq_callback)(void *clientp, char *primary_ip, char *local_ip, int primary_port, int local_port);

static inline CURLcode ccurl_easy_setopt_prereq(CURL *handle, ccurl_prereq_callback callback, void *data) {
#if LIBCURL_VERSION_NUM >= 0x075000
    CURLcode result = curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
    if (result != CURLE_OK) return result;
    return curl_easy_setopt(handle, CURLOPT_PREREQDATA, data);
#else
    return CURLE_UNKNOWN_OPTION;
#endif
}

#endif
