/* The transport's part in a device's life, subscribed to the device's
 * observer interface at emu_init() (emu/emu.c). */
#ifndef EMU_TRANSPORT_HOOKS_H
#define EMU_TRANSPORT_HOOKS_H

#include "emu/device/observer.h"
#include "emu/objects/xport.h"

extern const struct emu_observer emu_transport_hooks;
/* What the objects ask of it (emu/objects/xport.h). */
extern const struct emu_xport_ops emu_transport_xport;

#endif
