"""Port-level helpers shared by the cocotb testbenches (Amaranth's ``name__payload`` naming)."""

from cocotb.triggers import ReadOnly, RisingEdge

__all__ = ["transfer"]


async def transfer(dut, stream, payload):
    """Offer ``payload`` on the valid/ready port ``stream`` until the clock edge that takes it."""
    getattr(dut, f"{stream}__payload").value = payload
    getattr(dut, f"{stream}__valid").value = 1
    while True:
        await ReadOnly()
        taken = int(getattr(dut, f"{stream}__ready").value)
        await RisingEdge(dut.clk)
        if taken:
            break
    getattr(dut, f"{stream}__valid").value = 0
