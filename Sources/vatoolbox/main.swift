import VAToolbox

print("vatoolbox")
