// libebur128: ITU-R BS.1770 / EBU R128 loudness (momentary, short-term, integrated, LRA) and true peak.
#include <ebur128.h>
