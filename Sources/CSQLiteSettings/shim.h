#ifndef CSQLITESETTINGS_SHIM_H
#define CSQLITESETTINGS_SHIM_H

// sqlite3_config is variadic, which Swift cannot call.
#include <sqlite3.h>

// Turns off SQLite's memory statistics, which take a global mutex around every allocation
// and free for counters the bot never reads (SQLite's own advice for speed). Only takes
// effect before SQLite is first used in the process; returns SQLITE_MISUSE after.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
