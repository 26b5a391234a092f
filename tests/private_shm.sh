# Sourced by the test scripts that check /dev/shm for files left behind.
#
# shm_private ARGS: runs the calling script again, with ARGS, in a mount
# namespace of its own with an empty tmpfs (of the real one's size) on
# /dev/shm, so that what it counts is this job's alone, never a file of
# another job running beside it; sets shm_status to that run's status.
# Returns non-zero, having run nothing, inside that namespace already or
# where none can be made (neither root nor user namespaces; it says so).
#
# shm_names lists the files in /dev/shm but the names MPI libraries give
# their own shared memory (MPICH's mpich_shar_tmp*, Open MPI's
# vader_segment.* and sm_segment.*): what is left is reach's to answer for.
shm_private() {
  [ -z "$SHM_CHECK_PRIVATE" ] || return 1
  shm_size=$(df --output=size -k /dev/shm | tail -n 1 | tr -d ' ')k
  for shm_ns in "unshare --mount" "unshare --mount --map-root-user"; do
    if $shm_ns sh -c 'mount -t tmpfs none /dev/shm' 2>/dev/null; then
      SHM_CHECK_PRIVATE=1 $shm_ns sh -c \
        'mount -t tmpfs -o "size=$1" none /dev/shm && shift && exec "$@"' sh "$shm_size" "$0" "$@"
      shm_status=$?
      return 0
    fi
  done
  echo "$0: no mount namespace can be made: counting in the shared /dev/shm, where other jobs' files count too"
  return 1
}
shm_names() { ls -A /dev/shm | grep -v -E '^(mpich_shar_tmp|vader_segment\.|sm_segment\.)' | sort; }
