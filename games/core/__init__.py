"""The shared game protocol: engine contract, parameters, OpenSpiel face, information sets."""
