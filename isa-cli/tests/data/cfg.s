// If/else with a convergence barrier, a loop, and a jump table: the control-flow
// graph of `isa disasm --cfg` (isa-cli/tests/object.rs, scripts/browser-check.sh).
        S2R R1, SR_LANEID
        BSSY B0, `(.L_join)
        @P0 BRA `(.L_else)
        VOTE.ANY R5, P5, PT
        BRA `(.L_join)
.L_else:
        VOTE.ANY R6, P6, PT
.L_join:
        BSYNC B0
.L_loop:
        UIADD UR4, UR4, 0x1
        @P1 BRA `(.L_loop)
        BRX R2, `(.L_table)
.L_table:
        BRA `(.L_case0)
        BRA `(.L_case1)
.L_case0:
        EXIT
.L_case1:
        @P2 EXIT
        EXIT
