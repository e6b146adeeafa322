// placeholder
print("imagepipe")
