// What `isa run --timeline` draws (scripts/browser-check.sh opens the picture in
// Chromium). An if/else that reconverges at its BSYNC, then turns of a loop whose body
// splits the warp in two halves: the first sleeps (NANOSLEEP), the second yields
// (YIELD) after four of its lanes have left (EXIT) and while four are predicated off.
// A yielded half is exempted from the BSYNC, so the halves go round the loop on their
// own and meet again at the WARPSYNC.
        SHFL.UP P0, R9, R0, 0x10, 0x0       // P0: lanes 16..31
        SHFL.DOWN P1, R9, R0, 0x8, 0x1f     // P1: lanes 0..23
        SHFL.UP P2, R9, R0, 0x1c, 0x0       // P2: lanes 28..31
        S2R R1, SR_LANEID
        BSSY B1, `(.L_if)
        @P0 BRA `(.L_if)
        VOTE.ANY R6, P5, PT                 // lanes 0..15 only
.L_if:
        BSYNC B1                            // all lanes again
.L_loop:
        BSSY B0, `(.L_join)
        @P0 BRA `(.L_second)
        VOTE.ANY R2, P3, PT                 // the first half: lanes 0..15
        NANOSLEEP 0x8
        REDUX.SUM R4, R1
        BRA `(.L_join)
.L_second:
        @P2 EXIT                            // lanes 28..31 leave
        @P1 VOTE.ANY R3, P4, PT             // lanes 24..27 predicated off
        YIELD
        REDUX.SUM R5, R1
.L_join:
        BSYNC B0
        UIADD UR1, UR1, 0x1
        UISETP.GE.U32.AND UP0, UPT, UR1, 0x14, UPT
        USEL UR2, URZ, 0xffffff10, UP0      // UP0 ? go on : back to .L_loop (-0xf0)
        BRX UR2, `(.L_done)
.L_done:
        WARPSYNC 0xffffffff
        EXIT
