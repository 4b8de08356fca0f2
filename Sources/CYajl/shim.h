#ifndef CYAJL_SHIM_H
#define CYAJL_SHIM_H

#include <yajl/yajl_parse.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_version.h>

/* Swift cannot call C variadic functions; yajl_config and yajl_gen_config are
   variadic, so each option the store uses gets a fixed-argument wrapper. */

static inline int cyajl_config_bool(yajl_handle handle, yajl_option option, int enabled) {
    return yajl_config(handle, option, enabled);
}

static inline int cyajl_gen_config_bool(yajl_gen gen, yajl_gen_option option, int enabled) {
    return yajl_gen_config(gen, option, enabled);
}

static inline int cyajl_gen_config_indent(yajl_gen gen, const char *indent) {
    return yajl_gen_config(gen, yajl_gen_indent_string, indent);
}

/* glibc's heap growth step (mallopt M_TOP_PAD), set while a large file's objects are made;
   returns 1 on success, 0 where there is no such setting. */
#if defined(__has_include) && __has_include(<malloc.h>)
#include <malloc.h>
#endif
#if defined(M_TOP_PAD)
static inline int cyajl_set_heap_top_pad(int bytes) {
    return mallopt(M_TOP_PAD, bytes);
}
#else
static inline int cyajl_set_heap_top_pad(int bytes) {
    (void)bytes;
    return 0;
}
#endif

#endif
