/* The kinds of transfer and of user atomic, numbered once for every layer. */
#ifndef REACH_BASE_XFER_H
#define REACH_BASE_XFER_H

typedef enum xfer { XFER_PUT, XFER_GET, XFER_ACC } xfer_t;

/* Read-modify-write of a 4- or 8-byte word: ADD adds a, SWAP stores a,
 * CAS stores b if the word equals a; each returns the old value. */
typedef enum amo_op { AMO_ADD, AMO_SWAP, AMO_CAS } amo_op_t;

#endif
