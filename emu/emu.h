/* The front door of emu/: the one call that wires its rooms together. */
#ifndef EMU_EMU_H
#define EMU_EMU_H

/* Subscribe the objects, the transport and the observers to the device's
 * observer interface, once per process, before any device is made. Safe
 * to call from any thread, any number of times. */
void emu_init(void);

#endif
