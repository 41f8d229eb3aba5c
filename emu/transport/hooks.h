/* The transport's part in a device's life, subscribed to the device's
 * observer interface at emu_init() (emu/emu.c). */
#ifndef EMU_TRANSPORT_HOOKS_H
#define EMU_TRANSPORT_HOOKS_H

#include "emu/device/observer.h"

extern const struct emu_observer emu_transport_hooks;

#endif
