/* What the objects keep per device, subscribed to the device's observer
 * interface at emu_init() (emu/emu.c). */
#ifndef EMU_OBJECTS_HOOKS_H
#define EMU_OBJECTS_HOOKS_H

#include "emu/device/observer.h"

extern const struct emu_observer emu_objects_hooks;

#endif
