// Fault injection at every entry point of the test driver (Docs/TestVADriver.md, "Failing any
// call"): VATB_FAIL_CALL=ENTRY:N[:STATUS] fails the N-th call of ENTRY in the process,
// VATB_FAIL_RANDOM=SEED:P fails each call with probability P, VATB_HANG=ENTRY:N[:MS] blocks the
// N-th call of ENTRY for MS milliseconds (for ever without MS) as a hung GPU does, VATB_CALL_REPORT=1 prints how often
// each entry point was called when a driver instance terminates.
#ifndef VATB_FAULT_INJECTION_H
#define VATB_FAULT_INJECTION_H

#include <stdbool.h>
#include <va/va.h>

// Counts a call of `entry` (the driver function's name without "vatb_"), blocks it when VATB_HANG
// names it; whether it is to fail, and with which status.
bool vatb_inject(const char *entry, VAStatus *status);

// Prints the calls so far, "vatb: calls Name=N …", to standard error.
void vatb_report_calls(void);

// The first statement of every entry point that can fail: destroys, Terminate and the
// unimplemented subpicture and display calls are never failed (a failed destroy leaves its object
// by definition, and no driver fails one).
#define VATB_INJECT()                                                  \
    do {                                                               \
        VAStatus injected_;                                            \
        if (vatb_inject(__func__ + 5, &injected_)) return injected_;   \
    } while (0)

#endif
