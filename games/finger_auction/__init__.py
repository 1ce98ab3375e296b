"""Finger Auction: simultaneous finger bidding for face-up paintings, 2-4 players."""

from games.finger_auction.definition import FINGER_AUCTION, SMALL_VARIANT, FingerAuction
from games.finger_auction.engine import FingerAuctionEngine

__all__ = ["FINGER_AUCTION", "SMALL_VARIANT", "FingerAuction", "FingerAuctionEngine"]
