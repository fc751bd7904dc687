#include "thread_slot.h"

__thread long cthreadslot_value = 0;
